"""SQLite rate limits: fixed windows counted per key.

| table | key | columns |
|---|---|---|
| ``rate_windows`` | ``key``, ``window`` (window number) | ``n`` (attempts counted), ``expires_at`` (end of window + 60 s) |
"""

from __future__ import annotations

from chalicelib.adapters.policy import rate_window
from chalicelib.adapters.sqlite._base import Database


class SqliteLimits(Database):
    """Rate-limit windows (``RateLimiter``)."""

    def hit(self, key: str, limit: int, window_seconds: int, now_ms: int) -> bool:
        """Count one attempt in the current fixed window; True while within ``limit``."""
        if limit <= 0:
            return False
        window, expires = rate_window(window_seconds, now_ms)
        with self._write() as db:
            # One statement: count the attempt only while the window has room for it.
            counted = db.execute(
                "INSERT INTO rate_windows (key, window, n, expires_at) VALUES (?, ?, 1, ?)"
                " ON CONFLICT (key, window) DO UPDATE SET n = n + 1 WHERE n < ?",
                (key, window, expires, limit),
            ).rowcount
        return counted > 0

    def refund(self, key: str, window_seconds: int, now_ms: int) -> None:
        """Give back one attempt counted in the current window (never below zero)."""
        window, _ = rate_window(window_seconds, now_ms)
        with self._write() as db:
            db.execute(
                "UPDATE rate_windows SET n = n - 1 WHERE key = ? AND window = ? AND n > 0",
                (key, window),
            )
