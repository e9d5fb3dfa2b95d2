"""boto3 clients made on first use, shared by the adapters.

``chalice package`` imports the app with no environment, and a cold start should pay only for
the clients it uses, so no adapter builds its client in ``__init__``.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from chalicelib.ports import Unavailable

log = logging.getLogger(__name__)


class LazyClient:
    """A boto3 client for ``service``, created on the first ``get()`` (or the one injected).

    Either way it is a ``GuardedClient``: infrastructure faults surface as ``Unavailable``.
    """

    def __init__(
        self, service: str, *, client: Any = None, max_attempts: int = 3, **kwargs: Any
    ) -> None:
        self._service = service
        self._client = None if client is None else GuardedClient(client)
        self._max_attempts = max_attempts
        self._kwargs = kwargs
        self._lock = threading.Lock()

    @property
    def created(self) -> bool:
        """Whether the client exists yet (injected or made by ``get``)."""
        return self._client is not None

    def get(self) -> Any:
        """The client, created once even under concurrent first calls."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    import boto3
                    from botocore.config import Config

                    config = Config(
                        retries={"mode": "standard", "max_attempts": self._max_attempts}
                    )
                    made = boto3.client(self._service, config=config, **self._kwargs)
                    self._client = GuardedClient(made)
        return self._client


# --- infrastructure faults ---------------------------------------------------------------------
# The one place a boto error becomes the ports' ``Unavailable``: every adapter's client is a
# ``GuardedClient``, so each adapter keeps handling only the errors that mean something to it
# (ConditionalCheckFailed, Gone, Conflict...) and never sees a throttle as a bug.

THROTTLING_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "Throttling",
        "ThrottledException",
        "RequestThrottled",
        "RequestThrottledException",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "LimitExceededException",
        "SlowDown",
    }
)
FAILURE_CODES = frozenset(
    {
        "InternalServerError",
        "InternalServerErrorException",
        "InternalServerException",
        "InternalFailure",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "RequestTimeout",
        "RequestTimeoutException",
    }
)
CONFLICT_CODES = frozenset({"TransactionConflictException", "TransactionInProgressException"})
# Cancellation reasons of a transaction that a later try may pass (any other reason, such as
# ConditionalCheckFailed, is the adapter's to interpret).
TRANSIENT_REASONS = frozenset(
    {"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "None", ""}
)
RETRY_AFTER_SECONDS = {"throttled": 2, "conflict": 1, "failed": 1, "timeout": 1, "refused": 5}
# The errors an adapter interprets itself, so they reach it as they are: anywhere, or only
# from the operations named (a missing schedule is fine to delete; a missing table is not).
INTERPRETED_CODES = frozenset(
    {"ConditionalCheckFailedException", "GoneException", "ConflictException"}
)
INTERPRETED_BY_OPERATION = {
    "ResourceNotFoundException": frozenset({"delete_schedule", "DeleteSchedule"}),
    "ResourceInUseException": frozenset({"create_table", "CreateTable"}),
    # SNS mobile push: the platform said the token is gone, or the token is malformed
    "EndpointDisabled": frozenset({"publish", "Publish"}),
    "NotFound": frozenset({"publish", "Publish"}),
    "InvalidParameter": frozenset(
        {"publish", "Publish", "create_platform_endpoint", "CreatePlatformEndpoint"}
    ),
}


def error_code(err: BaseException) -> str:
    """The AWS error code of a botocore ``ClientError`` (empty for anything else)."""
    response = getattr(err, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def _interpreted(code: str, operation: str) -> bool:
    """Whether an adapter handles the error ``code`` of ``operation`` itself."""
    return code in INTERPRETED_CODES or operation in INTERPRETED_BY_OPERATION.get(code, ())


def unavailable(err: BaseException, operation: str = "") -> Unavailable | None:
    """The ``Unavailable`` that a boto error stands for, or None when it means something else.

    Throttling, server errors, timeouts and transactions cancelled by a concurrent one pass;
    any other AWS error is ``refused`` (no permission, expired or missing credentials, a
    missing table, a request refused as invalid): no retry within the request mends it, and
    the client is told 503 all the same. Only what an adapter interprets (a failed
    condition, a transaction cancelled by one, a gone connection, an existing or missing
    schedule) and the SDK's own refusal of its parameters (a bug) are left as they are.
    """
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        ConnectionError,
        HTTPClientError,
        ParamValidationError,
    )

    reason: str | None = None
    if isinstance(err, ClientError):
        code = error_code(err)
        status = int(err.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
        if code in THROTTLING_CODES:
            reason = "throttled"
        elif code in CONFLICT_CODES:
            reason = "conflict"
        elif code in FAILURE_CODES or status >= 500:
            reason = "failed"
        elif code == "TransactionCanceledException":
            reasons = [
                str(r.get("Code") or "") for r in err.response.get("CancellationReasons") or []
            ]
            if reasons and all(r in TRANSIENT_REASONS for r in reasons):
                throttled = {"ThrottlingError", "ProvisionedThroughputExceeded"} & set(reasons)
                reason = "throttled" if throttled else "conflict"
            elif "ConditionalCheckFailed" not in reasons:
                reason = "refused"
        elif not _interpreted(code, operation):
            reason = "refused"
    elif isinstance(err, (ConnectionError, HTTPClientError)):
        reason = "timeout"
    elif isinstance(err, BotoCoreError) and not isinstance(err, ParamValidationError):
        reason = "refused"
    if reason is None:
        return None
    if reason == "refused":
        log.error("AWS refused %s: %s", operation or "a call", err)
    what = error_code(err) or type(err).__name__
    return Unavailable(
        f"{operation or 'AWS call'} failed: {what}",
        reason=reason,
        retry_after=RETRY_AFTER_SECONDS[reason],
    )


class GuardedClient:
    """A boto3 client whose calls raise ``Unavailable`` for throttling, failures and timeouts."""

    def __init__(self, client: Any) -> None:
        object.__setattr__(self, "_client", client)

    def __setattr__(self, name: str, value: Any) -> None:
        # Tests and benchmarks replace a client method; the replacement is guarded too.
        setattr(self._client, name, value)

    @property
    def unguarded(self) -> Any:
        """The client inside."""
        return self._client

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._client, name)
        if name in ("meta", "exceptions") or not callable(target):
            return target

        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return target(*args, **kwargs)
            except Exception as err:
                translated = unavailable(err, name)
                if translated is not None:
                    raise translated from err
                raise

        return guarded
