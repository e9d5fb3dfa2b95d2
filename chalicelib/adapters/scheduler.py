"""One-time room wake-ups with EventBridge Scheduler (the Timers port).

Each wake-up is a one-time ``at()`` schedule in UTC, named deterministically from room id
and version so a repeat is a harmless ConflictException and a cancel needs no lookup. It
deletes itself after running, retries a little (not Scheduler's default of 185 attempts over
24 h), and invokes the timer Lambda with ``{"room_id", "version"}``. Scheduler fires up to
about a minute late; the game does not depend on it being on time (ARCHITECTURE.md, 4).
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from chalicelib.adapters._aws import LazyClient
from chalicelib.retry import with_backoff

_NAME_OK = re.compile(r"[0-9A-Za-z_.-]+")
MAX_NAME = 64


def schedule_name(room_id: str, version: int) -> str:
    """``room-<room_id>-v<version>``, or a hash of the room id when that is not a valid name."""
    name = f"room-{room_id}-v{version}"
    if _NAME_OK.fullmatch(name) and len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(room_id.encode()).hexdigest()[:32]
    return f"room-h{digest}-v{version}"


def at_expression(at_ms: int) -> str:
    """``at(yyyy-mm-ddThh:mm:ss)`` in UTC, rounded up to the next whole second."""
    seconds = -(-at_ms // 1000)
    return f"at({datetime.fromtimestamp(seconds, UTC):%Y-%m-%dT%H:%M:%S})"


class SchedulerTimers:
    """Creates and deletes one-time schedules that invoke the room timer Lambda."""

    def __init__(
        self,
        group: str,
        target_arn: str,
        role_arn: str,
        region: str | None = None,
        *,
        dead_letter_arn: str | None = None,
        client: Any = None,
    ) -> None:
        self.group = group
        self.dead_letter_arn = dead_letter_arn
        self.target_arn = target_arn
        self.role_arn = role_arn
        self.region = region
        self._client = LazyClient("scheduler", client=client, region_name=region)

    @property
    def client(self) -> Any:
        """The boto3 ``scheduler`` client, created on first use."""
        return self._client.get()

    def schedule(self, room_id: str, version: int, at_ms: int) -> None:
        """Wake the timer Lambda for ``room_id`` at ``at_ms``; an existing schedule is kept.

        Idempotent by the deterministic name, so asking again repairs a lost wake-up. A
        throttled or failing CreateSchedule is retried with backoff; what is left raises
        ``Unavailable`` (the caller logs it and the next touch of the room repairs it).
        """
        name = schedule_name(room_id, version)

        def create() -> None:
            try:
                self.client.create_schedule(
                    Name=name,
                    GroupName=self.group,
                    ScheduleExpression=at_expression(at_ms),
                    ScheduleExpressionTimezone="UTC",
                    FlexibleTimeWindow={"Mode": "OFF"},
                    ActionAfterCompletion="DELETE",
                    Target={
                        "Arn": self.target_arn,
                        "RoleArn": self.role_arn,
                        "Input": json.dumps({"room_id": room_id, "version": version}),
                        "RetryPolicy": {
                            "MaximumRetryAttempts": 3,
                            "MaximumEventAgeInSeconds": 300,
                        },
                        **self._dead_letter(),
                    },
                )
            except Exception as err:
                if _code(err) != "ConflictException":
                    raise

        with_backoff(create, what=f"schedule {name}")

    def _dead_letter(self) -> dict[str, Any]:
        """``DeadLetterConfig`` for the target when a queue is configured (else nothing)."""
        # A wake-up Scheduler cannot deliver after its retries lands in the queue instead of
        # vanishing; an alarm watches it, and the room still advances on its next touch.
        return {"DeadLetterConfig": {"Arn": self.dead_letter_arn}} if self.dead_letter_arn else {}

    def cancel(self, room_id: str, version: int) -> None:
        """Delete the schedule made for ``room_id`` at ``version`` (missing is fine)."""
        try:
            self.client.delete_schedule(Name=schedule_name(room_id, version), GroupName=self.group)
        except Exception as err:
            if _code(err) != "ResourceNotFoundException":
                raise


def _code(err: Exception) -> str:
    response = getattr(err, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


if TYPE_CHECKING:  # mypy proves the adapter fits the port
    from chalicelib.ports import Timers

    _timers: Timers = SchedulerTimers("default", "arn:target", "arn:role")
