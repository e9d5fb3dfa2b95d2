"""Retries with exponential backoff for operations the server drives itself.

A client's request that meets an infrastructure fault answers 503 with ``Retry-After`` and the
client retries; what no client is waiting on (the timer handler, pushes and wake-ups after a
commit, a transaction cancelled by a concurrent one) is retried here, a few times with
jittered exponential backoff, when the failure is an ``Unavailable`` (the ports' domain error
for throttling, server errors and timeouts). A ``refused`` call (no permission, no
credentials, a missing table) is not tried again: a pause does not mend it.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from chalicelib.ports import Unavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

ATTEMPTS = 3
"""Tries in all (botocore already retried each call: this covers what it did not absorb)."""
BASE_DELAY_S = 0.05
"""The first pause; each later one doubles (with full jitter), capped at ``MAX_DELAY_S``."""
MAX_DELAY_S = 1.0

sleep: Callable[[float], None] = time.sleep
"""The pause function (tests replace it to run without waiting)."""


def delay(attempt: int) -> float:
    """Full-jitter pause before try ``attempt + 1`` (``attempt`` counts from 1)."""
    return random.uniform(0, min(MAX_DELAY_S, BASE_DELAY_S * 2 ** (attempt - 1)))


def with_backoff(
    fn: Callable[[], T],
    *,
    attempts: int = ATTEMPTS,
    retry_if: Callable[[Unavailable], bool] = lambda err: err.reason != "refused",
    what: str = "operation",
) -> T:
    """Run ``fn``; on an ``Unavailable`` that ``retry_if`` accepts, pause and try again.

    The last failure propagates, so a caller still answers 503 (or fails its Lambda
    invocation, for the asynchronous retry and dead-letter queue to take over).
    """
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except Unavailable as err:
            if attempt >= attempts or not retry_if(err):
                raise
            log.warning("%s unavailable (%s), try %d of %d", what, err.reason, attempt, attempts)
            sleep(delay(attempt))
    raise AssertionError("unreachable")  # pragma: no cover
