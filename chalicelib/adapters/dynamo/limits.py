"""Rate limits: fixed-window counters.

| item              | pk         | sk             | main attributes |
|-------------------|------------|----------------|-----------------|
| rate-limit window | RATE#<key> | W#<window no.> | n, expires_at   |
"""

from __future__ import annotations

from chalicelib.adapters.dynamo._table import Item, Table, conditional_check_failed, key, n
from chalicelib.adapters.policy import rate_window


def _window(key_: str, window_seconds: int, now_ms: int) -> tuple[Item, int]:
    """The key of ``key_``'s current window item, and the item's ``expires_at``."""
    window, expires = rate_window(window_seconds, now_ms)
    return key(f"RATE#{key_}", f"W#{window}"), expires


class DynamoLimits(Table):
    """The RateLimiter port: one counter item per key and window, expiring after it."""

    def hit(self, key: str, limit: int, window_seconds: int, now_ms: int) -> bool:
        """Count one attempt in the current fixed window; True while within ``limit``."""
        item_key, expires = _window(key, window_seconds, now_ms)
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key=item_key,
                UpdateExpression="ADD n :one SET expires_at = :exp",
                # The limit: count an attempt only while the window has room for it.
                ConditionExpression="attribute_not_exists(n) OR n < :limit",
                ExpressionAttributeValues={
                    ":one": n(1),
                    ":exp": n(expires),
                    ":limit": n(limit),
                },
            )
        except Exception as err:
            if conditional_check_failed(err):
                return False
            raise
        return True

    def refund(self, key: str, window_seconds: int, now_ms: int) -> None:
        """Give back one attempt counted in the current window (never below zero)."""
        item_key, _ = _window(key, window_seconds, now_ms)
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key=item_key,
                UpdateExpression="ADD n :minus",
                # Only a counted attempt is given back: the window item exists and n > 0.
                ConditionExpression="n > :zero",
                ExpressionAttributeValues={":minus": n(-1), ":zero": n(0)},
            )
        except Exception as err:
            if not conditional_check_failed(err):
                raise
