"""Dependency wiring: which store, notifier, timers, clock and roller the service uses.

In AWS, ``get_deps()`` builds the real adapters from ``Settings`` on first use (never at
import time: ``chalice package`` imports the app with no environment). The local server and
tests call ``set_deps()`` with fakes or a moto-backed store, and ``reset_deps()`` after.
"""

from __future__ import annotations

import importlib
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

from chalicelib.ports import Clock, Notifier, Store, Timers
from chalicelib.settings import ConfigError, Settings, get_settings


class SystemClock:
    """The real clock, in epoch milliseconds."""

    def now_ms(self) -> int:
        """Current time in epoch milliseconds."""
        return int(time.time() * 1000)


@dataclass(frozen=True)
class Deps:
    """Everything the service layer needs from the outside world."""

    store: Store
    notifier: Notifier
    timers: Timers
    clock: Clock
    roller: Any  # chalicelib.adapters.dice.SecretsRoller in production
    push: Any = None
    """``chalicelib.notify.Deliverer`` (Web Push and mobile push), or None: no notifications."""


_lock = threading.Lock()
_deps: Deps | None = None


def get_deps() -> Deps:
    """The process's dependencies, built from settings on first use unless injected."""
    global _deps
    if _deps is None:
        with _lock:
            if _deps is None:
                _deps = observed(build_aws_deps(get_settings()))
    return _deps


def set_deps(deps: Deps) -> None:
    """Inject dependencies (local server, tests)."""
    global _deps
    with _lock:
        _deps = deps


def reset_deps() -> None:
    """Forget injected or built dependencies; the next ``get_deps()`` builds them again."""
    global _deps
    with _lock:
        _deps = None


def default_roller() -> Any:
    """The production dice roller (the OS's CSPRNG, ``secrets``-backed)."""
    module = importlib.import_module("chalicelib.adapters.dice")
    return module.SecretsRoller()


def build_aws_deps(settings: Settings) -> Deps:
    """The AWS-backed dependencies described by ``settings`` (clients are made lazily)."""
    from chalicelib.adapters.dynamo import DynamoStore
    from chalicelib.adapters.notifier import ApiGatewayNotifier
    from chalicelib.adapters.scheduler import SchedulerTimers

    if not settings.websocket_api_id:
        raise ConfigError("WEBSOCKET_API_ID is required to push messages")
    if not settings.timer_function_arn or not settings.scheduler_role_arn:
        raise ConfigError("TIMER_FUNCTION_ARN and SCHEDULER_ROLE_ARN are required for timers")
    store = DynamoStore(
        settings.table_name,
        settings.region,
        connection_ttl_seconds=settings.connection_ttl_seconds,
    )
    return Deps(
        store=store,
        notifier=ApiGatewayNotifier(
            settings.websocket_api_id, settings.websocket_stage, settings.region
        ),
        timers=SchedulerTimers(
            settings.scheduler_group,
            settings.timer_function_arn,
            settings.scheduler_role_arn,
            settings.region,
            dead_letter_arn=settings.timer_dead_letter_arn,
        ),
        clock=SystemClock(),
        roller=default_roller(),
        push=build_aws_push(settings, store),
    )


def build_aws_push(settings: Settings, store: Any) -> Any:
    """Notifications on AWS: Web Push with the VAPID key derived from its secret (read on
    the first notification, not at a cold start), mobile push through SNS when platform
    applications are configured."""
    from chalicelib.adapters.secrets import fetch_vapid_secret
    from chalicelib.notify import Deliverer, stored_language
    from chalicelib.webpush import VapidKey, WebPushSender

    def web() -> WebPushSender:
        key = VapidKey.from_secret(fetch_vapid_secret(settings))
        return WebPushSender(key, subject=settings.vapid_subject, allow=settings.push_allow)

    mobile = None
    if settings.sns_apns_arn or settings.sns_fcm_arn:
        from chalicelib.adapters.sns_push import SnsMobilePush

        mobile = SnsMobilePush(
            {"apns": settings.sns_apns_arn, "fcm": settings.sns_fcm_arn}, settings.region
        )
    has_key = bool(settings.vapid_secret_arn or settings.vapid_secret)
    return Deliverer(store, web if has_key else None, mobile, stored_language(store))


def observed(deps: Deps) -> Deps:
    """``deps`` with pushes and schedules counted as metrics (``chalicelib.observability``)."""
    from chalicelib.observability import ObservedNotifier, ObservedTimers

    return replace(
        deps, notifier=ObservedNotifier(deps.notifier), timers=ObservedTimers(deps.timers)
    )
