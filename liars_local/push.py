"""The local server's Web Push key and notification wiring.

The VAPID key is derived from a secret text kept in the data folder (``vapid-secret``, mode
0600), made once and written atomically: the text goes to a private temporary file first,
which is then linked into place only if no file is there yet, so two processes starting at
once agree on one key and a reader never sees a half-written file. The same text always
gives the same key (``chalicelib.webpush.VapidKey.from_secret``), so browsers' subscriptions
outlive restarts. Mobile push is the recording adapter behind the same port as SNS on AWS.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Any

VAPID_FILE_NAME = "vapid-secret"


def load_or_create_vapid_secret(data_dir: Path) -> str:
    """The VAPID secret text kept in ``data_dir``, made once (owner-only file, mode 0600)."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = data_dir / VAPID_FILE_NAME
    if not path.exists():
        text = secrets.token_urlsafe(48)
        tmp = data_dir / f".{VAPID_FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as out:
                out.write(text + "\n")
                out.flush()
                os.fsync(out.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)  # atomic, and never replaces a key already made
        finally:
            tmp.unlink(missing_ok=True)
    if os.name == "posix" and path.stat().st_mode & 0o077:
        os.chmod(path, 0o600)  # a copied or restored file: owner-only again
    text = path.read_text().strip()
    if len(text.encode()) < 32:
        raise ValueError(f"{path} holds no usable VAPID secret: delete it to make a new one")
    return text


def local_push(store: Any) -> Any:
    """The notifications of the local server: Web Push (key from ``VAPID_SECRET``, made on
    first use, endpoints checked against ``PUSH_ENDPOINT_ALLOW``) and recorded mobile push."""
    from chalicelib.adapters.sns_push import RecordingMobilePush
    from chalicelib.notify import Deliverer, stored_language
    from chalicelib.settings import get_settings
    from chalicelib.webpush import VapidKey, WebPushSender

    settings = get_settings()

    def web() -> WebPushSender:
        key = VapidKey.from_secret(settings.vapid_secret or "")
        return WebPushSender(key, subject=settings.vapid_subject, allow=settings.push_allow)

    return Deliverer(
        store,
        web if settings.vapid_secret else None,
        RecordingMobilePush(),
        stored_language(store),
    )
