"""Web Push: VAPID keys, RFC 8291 encryption, and the one HTTP request per message.

- **Keys.** The server's VAPID key (RFC 8292) is a P-256 key derived from a secret text
  (``VapidKey.from_secret``): the local server keeps that text in its data folder, AWS in a
  Secrets Manager secret the stack generates. Derivation lets Secrets Manager's own random
  strings serve as the key (it cannot generate EC keys), and the same text always gives the
  same key, so browsers' subscriptions outlive restarts and deploys.
- **Encryption.** Each message is encrypted for the subscription's ``p256dh`` key and ``auth``
  secret with a fresh ephemeral key, content coding ``aes128gcm`` (RFC 8188/8291), by the
  maintained ``http_ece`` library.
- **Sending.** One POST to the endpoint with ``TTL``, ``Urgency``, ``Content-Encoding:
  aes128gcm`` and ``Authorization: vapid t=<JWT>, k=<public key>``. The endpoint is checked
  against the allow-list again right before the request (``chalicelib.push_endpoints``); an
  HTTPS host must resolve to public addresses only and the connection goes to the address
  that was checked; a redirect is never followed (a 3xx is a failure). 429 and 5xx (and a
  connection fault) are retried with backoff, honouring a short ``Retry-After``; 404 and
  410 mean the subscription is gone (the caller forgets it).
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import ipaddress
import json
import random
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib.push_endpoints import AllowList, EndpointNotAllowed

_KEY_INFO = b"liars-lies vapid key v1\x00"
_P256_ORDER = int("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551", 16)

JWT_LIFETIME_S = 12 * 3600
"""A VAPID JWT's lifetime (RFC 8292 allows at most 24 h)."""
ATTEMPTS = 3
"""Tries per message in all, for 429, 5xx and connection faults."""
BASE_DELAY_S = 0.2
MAX_DELAY_S = 2.0
"""Backoff: full jitter from ``BASE_DELAY_S``, doubling, capped (also caps ``Retry-After``)."""
TIMEOUT_S = 5.0
"""Connect and read timeout per request."""

Urgency = Literal["very-low", "low", "normal", "high"]
Outcome = Literal["sent", "gone", "failed", "refused"]


def b64u_decode(text: str) -> bytes:
    """Base64url without padding (as browsers and VAPID write it) to bytes."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64u_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class VapidKey:
    """The server's application-server key pair (P-256)."""

    private: Any  # cryptography's EllipticCurvePrivateKey

    @classmethod
    def from_secret(cls, secret: str) -> VapidKey:
        """The key derived from ``secret`` (at least 32 bytes of random text)."""
        from cryptography.hazmat.primitives.asymmetric import ec

        if len(secret.encode()) < 32:
            raise ValueError("the VAPID secret must be at least 32 bytes")
        digest = hashlib.sha512(_KEY_INFO + secret.encode()).digest()
        scalar = int.from_bytes(digest, "big") % (_P256_ORDER - 1) + 1
        return cls(ec.derive_private_key(scalar, ec.SECP256R1()))

    @property
    def public_key(self) -> str:
        """The public key as browsers take it: base64url of the uncompressed point (65 bytes)."""
        from cryptography.hazmat.primitives import serialization

        raw = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64u_encode(raw)

    def authorization(self, audience: str, subject: str, now_s: int) -> str:
        """The ``Authorization`` header for a push service's origin (RFC 8292 §3)."""
        import jwt

        token = jwt.encode(
            {"aud": audience, "exp": now_s + JWT_LIFETIME_S, "sub": subject},
            self.private,
            algorithm="ES256",
        )
        return f"vapid t={token}, k={self.public_key}"


@dataclass(frozen=True)
class PushTarget:
    """Where one browser receives pushes (its ``PushSubscription``)."""

    endpoint: str
    p256dh: str
    auth: str


def encrypt(payload: bytes, target: PushTarget) -> bytes:
    """``payload`` encrypted for the subscription (RFC 8291, ``aes128gcm``)."""
    import http_ece
    from cryptography.hazmat.primitives.asymmetric import ec

    return bytes(
        http_ece.encrypt(
            payload,
            private_key=ec.generate_private_key(ec.SECP256R1()),
            dh=b64u_decode(target.p256dh),
            auth_secret=b64u_decode(target.auth),
            version="aes128gcm",
        )
    )


def valid_keys(p256dh: str, auth: str) -> bool:
    """Whether the subscription's keys are a P-256 point and a 16-byte secret."""
    try:
        point = b64u_decode(p256dh)
        secret = b64u_decode(auth)
    except (ValueError, TypeError):
        return False
    if len(point) != 65 or point[0] != 4 or len(secret) != 16:
        return False
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Delivery:
    """What became of one message: ``sent``, ``gone`` (forget it), ``failed``, ``refused``."""

    outcome: Outcome
    status: int | None = None
    attempts: int = 0


class WebPushSender:
    """Sends encrypted messages to allowed endpoints (one request per try, no redirects)."""

    def __init__(
        self,
        key: VapidKey,
        *,
        subject: str,
        allow: AllowList,
        clock_s: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        resolve: Callable[[str, int], list[str]] | None = None,
        attempts: int = ATTEMPTS,
        timeout_s: float = TIMEOUT_S,
    ) -> None:
        self.key = key
        self.subject = subject
        self.allow = allow
        self.clock_s = clock_s
        self.sleep = sleep
        self.resolve = resolve or _resolve
        self.attempts = attempts
        self.timeout_s = timeout_s
        self._auth_cache: dict[str, tuple[float, str]] = {}

    def send(
        self, target: PushTarget, message: dict[str, Any], *, ttl: int, urgency: Urgency
    ) -> Delivery:
        try:
            parts = self.allow.check(target.endpoint)
        except EndpointNotAllowed:
            return Delivery("refused")
        body = encrypt(json.dumps(message, separators=(",", ":")).encode(), target)
        origin = f"{parts.scheme}://{parts.netloc}"
        headers = {
            "TTL": str(ttl),
            "Urgency": urgency,
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "Authorization": self._authorization(origin),
        }
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        status: int | None = None
        for attempt in range(1, self.attempts + 1):
            retry_after: float | None = None
            try:
                status, retry_after = self._post(parts.scheme, host, port, path, headers, body)
            except (OSError, http.client.HTTPException, _Refused) as err:
                if isinstance(err, _Refused):
                    return Delivery("refused", attempts=attempt)
                status = None
            if status is not None and 200 <= status < 300:
                return Delivery("sent", status, attempt)
            if status in (404, 410):
                return Delivery("gone", status, attempt)
            if status is not None and status != 429 and status < 500:
                return Delivery("failed", status, attempt)  # 3xx, 400, 403, 413: not mended
            if attempt < self.attempts:
                pause = random.uniform(0, min(MAX_DELAY_S, BASE_DELAY_S * 2 ** (attempt - 1)))
                if retry_after is not None:
                    pause = min(MAX_DELAY_S, max(pause, retry_after))
                self.sleep(pause)
        return Delivery("failed", status, self.attempts)

    def _authorization(self, origin: str) -> str:
        now = self.clock_s()
        hit = self._auth_cache.get(origin)
        if hit is not None and now < hit[0]:
            return hit[1]
        value = self.key.authorization(origin, self.subject, int(now))
        # reuse a JWT for an hour of its 12: one signature per push service, not per message
        self._auth_cache[origin] = (now + 3600, value)
        return value

    def _post(
        self, scheme: str, host: str, port: int, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, float | None]:
        conn: http.client.HTTPConnection
        if scheme == "https":
            addresses = self.resolve(host, port)
            public = [a for a in addresses if _public(a)]
            if not public or len(public) != len(addresses):
                raise _Refused(host)  # a name that resolves to a private address: never
            conn = _PinnedHTTPS(host, port, public[0], self.timeout_s)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=self.timeout_s)
        try:
            conn.request("POST", path, body=body, headers=headers)
            answer = conn.getresponse()
            answer.read(64 * 1024)
            return answer.status, _retry_after(answer.getheader("Retry-After"))
        finally:
            conn.close()


class _Refused(Exception):
    """The endpoint's host resolved to an address the server never contacts."""


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to ``host`` (certificate and SNI) at the one ``address`` that was checked."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def _resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _public(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_global
    except ValueError:
        return False


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(int(value.strip())))
    except ValueError:
        return None
