"""Quick bots for tests that play whole games on the local server.

Bots think 1–2.5 s in production (issue 10); a test that waits for whole games sets a short
range for the life of its server, then puts the environment back.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from chalicelib.settings import reset_settings

KEYS = ("BOT_THINK_MIN_MS", "BOT_THINK_MAX_MS")


@contextmanager
def quick_bots(low_ms: str = "150", high_ms: str = "300") -> Iterator[None]:
    """Set the bots' think time range (ms) until the block ends."""
    saved = {k: os.environ.get(k) for k in KEYS}
    os.environ[KEYS[0]], os.environ[KEYS[1]] = low_ms, high_ms
    reset_settings()
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reset_settings()
