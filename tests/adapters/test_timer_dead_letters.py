"""Room wake-ups Scheduler cannot deliver go to the dead-letter queue the stack configures."""

from __future__ import annotations

from chalicelib import wiring
from chalicelib.adapters.scheduler import SchedulerTimers
from chalicelib.observability import ObservedNotifier, ObservedTimers
from chalicelib.settings import Settings

TARGET = "arn:aws:lambda:us-east-1:123456789012:function:liars-lies-dev-room_timer"
ROLE = "arn:aws:iam::123456789012:role/liars-scheduler"
DLQ = "arn:aws:sqs:us-east-1:123456789012:liars-lies-dev-timer-dead-letters"


def test_schedules_carry_the_dead_letter_queue_when_one_is_configured(moto_aws: None) -> None:
    timers = SchedulerTimers("default", TARGET, ROLE, "us-east-1", dead_letter_arn=DLQ)
    timers.schedule("r1", 2, 1_700_000_000_000)
    got = timers.client.get_schedule(Name="room-r1-v2", GroupName="default")
    assert got["Target"]["DeadLetterConfig"] == {"Arn": DLQ}


def test_schedules_have_no_dead_letter_config_without_a_queue(moto_aws: None) -> None:
    timers = SchedulerTimers("default", TARGET, ROLE, "us-east-1")
    timers.schedule("r1", 2, 1_700_000_000_000)
    got = timers.client.get_schedule(Name="room-r1-v2", GroupName="default")
    assert "DeadLetterConfig" not in got["Target"]


def test_the_dead_letter_arn_reaches_the_timers_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "WEBSOCKET_API_ID": "abc",
            "TIMER_FUNCTION_ARN": TARGET,
            "SCHEDULER_ROLE_ARN": ROLE,
            "TIMER_DEAD_LETTER_ARN": DLQ,
        }
    )
    assert settings.timer_dead_letter_arn == DLQ
    deps = wiring.build_aws_deps(settings)
    assert isinstance(deps.timers, SchedulerTimers) and deps.timers.dead_letter_arn == DLQ


def test_the_process_deps_count_pushes_and_schedules() -> None:
    settings = Settings(websocket_api_id="abc", timer_function_arn=TARGET, scheduler_role_arn=ROLE)
    deps = wiring.observed(wiring.build_aws_deps(settings))
    assert isinstance(deps.notifier, ObservedNotifier)
    assert isinstance(deps.timers, ObservedTimers)
    assert isinstance(deps.timers.inner, SchedulerTimers)
