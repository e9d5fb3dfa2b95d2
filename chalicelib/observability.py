"""Structured logs and CloudWatch metrics for the Lambda functions (Powertools for AWS Lambda).

One Chalice middleware (``app.py``) wraps every invocation (REST, WebSocket, the room timer)
with ``around_invocation``: it binds the invocation's identifiers to the log context, logs one
JSON line when the invocation ends, and flushes the metrics counted during the invocation as
CloudWatch embedded metric format (EMF) lines, so nothing is carried into the next invocation.

Logs (Powertools ``Logger``): every line of the ``liars-lies`` and ``chalicelib`` loggers is a
JSON object with ``request_id`` (Lambda), ``api_request_id`` (API Gateway, as in the access
logs), ``route``, and when known ``room_id``, ``user_id``, ``connection_id``, ``version`` (the
room's state version) and ``function_version``. Only identifiers are bound; a scrubber removes
dice, hands, Poker cups, tokens, tickets, passwords and passcodes from anything else a line
carries (``SECRET_KEYS``).

Metrics (Powertools ``EphemeralMetrics``, namespace ``POWERTOOLS_METRICS_NAMESPACE``, default
``LiarsLies``; dimension ``service``): see ``docs/OPERATIONS.md`` for each name. Counters with a
second dimension (``kind`` of action, ``rules`` of a game) go out as one EMF line per value.

Nothing here imports Powertools until the first invocation (the cold import of ``app`` stays
small), and everything is off outside Lambda (the local server, tests) unless ``enable()`` is
called: counting is then a no-op and the middleware passes straight through. No function in
this module raises into a request: a failure to log or to flush is swallowed.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from chalicelib.ports import Notifier, Store, Timers

SERVICE = "liars-lies"
DEFAULT_NAMESPACE = "LiarsLies"
NAMESPACE_ENV = "POWERTOOLS_METRICS_NAMESPACE"
LOGGERS = ("liars-lies", "chalicelib")
"""The loggers the code writes to (``app.py`` and ``chalicelib.*``), all made structured."""

CONTEXT_KEYS = (
    "request_id",
    "api_request_id",
    "route",
    "room_id",
    "user_id",
    "connection_id",
    "version",
    "function_version",
)
"""The only keys ``bind`` accepts: identifiers, never game content or credentials."""

MAX_ID_CHARS = 128
SECRET_KEYS = frozenset(
    {
        # hidden dice: views and events (``dice``, ``hand``), Poker's cup (its stored round state
        # ``x.cup`` and a holder's view), a stored seat's hand (``h``), bots' private memory
        "dice",
        "hand",
        "hands",
        "cup",
        "h",
        "bm",
        "bot_memory",
        # credentials
        "token",
        "ticket",
        "password",
        "passcode",
        "secret",
        "authorization",
        "cookie",
    }
)
"""Keys whose values never reach a log line (compared in lower case)."""
CREDENTIAL_WORDS = frozenset(
    {"token", "ticket", "password", "passcode", "secret", "authorization", "cookie"}
)
"""A key with one of these words among its ``_``/``-`` parts is redacted too (``access_token``,
``new_password``, ``Set-Cookie``); dice words are matched whole only, so ``dice_count`` (public)
stays readable."""
_REDACTED = "[redacted]"
_SCRUB = (
    # JWTs (session tokens) and bearer headers
    (re.compile(r"eyJ[\w-]+\.[\w-]+\.[\w-]+"), "[token]"),
    (re.compile(r"(?i)(bearer\s+)\S+"), r"\1[token]"),
    # 'dice': [1, 2], "passcode": "x", ticket=abc in messages and exception texts
    (
        re.compile(
            r"""(?i)(["']?\b(?:dice|hands?|cup|token|ticket|password|passcode|secret)\b["']?\s*[:=]\s*"""
            r"""|["']h["']\s*:\s*)"""
            r"""(\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\]|"[^"]*"|'[^']*'|[^\s,}]+)"""
        ),
        r"\1" + _REDACTED,
    ),
)

# --- state of this process and of the current invocation ----------------------------------------

_enabled: bool | None = None  # None: decided from the environment on first use
_logger: Any = None  # the Powertools Logger, made on first use
_bound: dict[str, Any] = {}
_counts: dict[tuple[str, str] | None, dict[tuple[str, str], float]] = {}
_timings: dict[tuple[str, str] | None, dict[str, list[float]]] = {}
_cold = True
_undo_bots: list[Callable[[], None]] = []
_level = [logging.INFO]
_saved_loggers: dict[str, tuple[list[logging.Handler], int, bool]] = {}


def enabled() -> bool:
    """Whether logs are structured and metrics counted: in Lambda, or after ``enable()``."""
    global _enabled
    if _enabled is None:
        _enabled = bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))
    return _enabled


def enable(stream: IO[str] | None = None) -> None:
    """Turn observability on in this process (tests); log lines go to ``stream`` (stdout)."""
    global _enabled
    _enabled = True
    handler = logger().logger_handler
    if isinstance(handler, logging.StreamHandler):
        handler.setStream(stream or _STDOUT)


def disable() -> None:
    """Back to the default (on only in Lambda): loggers as they were, nothing bound or unflushed."""
    global _enabled, _cold
    _enabled = None
    _cold = True
    while _undo_bots:
        _undo_bots.pop()()
    _reset()
    for name, (handlers, level, propagate) in _saved_loggers.items():
        target = logging.getLogger(name)
        target.handlers = handlers
        target.setLevel(level)
        target.propagate = propagate
    _saved_loggers.clear()


def _reset() -> None:
    _counts.clear()
    _timings.clear()
    if _bound and _logger is not None:
        _logger.remove_keys(list(_bound))
    _bound.clear()


class _CurrentStdout:
    """Writes to whatever ``sys.stdout`` is at the time (Lambda's, or a test's capture)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()


_STDOUT: Any = _CurrentStdout()


# --- logs ------------------------------------------------------------------------------------


def logger() -> Any:
    """The Powertools ``Logger`` (``service=liars-lies``), made on first use, wired to our loggers.

    ``app.py`` logs to ``liars-lies`` (Chalice's app logger) and ``chalicelib.*`` modules to
    children of ``chalicelib``: both get the one JSON handler (so the same formatter and bound
    keys) in place of what they had (Chalice's plain-text handler would print every line a
    second time), and stop there instead of reaching the runtime's root logger.
    """
    global _logger
    current = _logger.logger_handler if _logger is not None else None
    if not _saved_loggers:
        for name in LOGGERS:
            target = logging.getLogger(name)
            kept = [h for h in target.handlers if h is not current]
            _saved_loggers[name] = (kept, target.level, target.propagate)
            target.handlers = []
    if _logger is None:
        from aws_lambda_powertools.logging import Logger
        from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

        class ScrubbingFormatter(LambdaPowertoolsFormatter):
            """Powertools' JSON lines with secrets and game content removed before writing."""

            def serialize(self, log: Any) -> str:
                return str(super().serialize(scrub(log)))

        _logger = Logger(service=SERVICE, stream=_STDOUT, logger_formatter=ScrubbingFormatter())
        _level[0] = _logger.log_level  # POWERTOOLS_LOG_LEVEL, else INFO
    handler = _logger.logger_handler
    for name in LOGGERS:
        target = logging.getLogger(name)
        if handler not in target.handlers:
            target.addHandler(handler)
        target.setLevel(_level[0])
        target.propagate = False
    return _logger


def _secret_key(key: Any) -> bool:
    name = str(key).lower()
    return name in SECRET_KEYS or not CREDENTIAL_WORDS.isdisjoint(re.split(r"[_\-]", name))


def scrub(value: Any) -> Any:
    """``value`` with secret-named keys redacted and tokens or dice removed from strings.

    Engine objects (dataclasses such as ``Room`` or ``Player``) and pydantic models are logged
    as their fields, scrubbed like a dict: their ``repr`` would carry a seat's hand.
    """
    if isinstance(value, dict):
        return {k: _REDACTED if _secret_key(k) else scrub(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return scrub(dataclasses.asdict(value))
    if hasattr(value, "model_dump") and not isinstance(value, type):
        return scrub(value.model_dump(mode="json"))
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    if isinstance(value, str):
        for pattern, replacement in _SCRUB:
            value = pattern.sub(replacement, value)
        return value
    return value


def bind(**keys: Any) -> None:
    """Add identifiers (``CONTEXT_KEYS`` only) to every later log line of this invocation.

    Values that are not short printable strings or whole numbers are left out, and so are
    keys outside ``CONTEXT_KEYS``: what is logged stays identifiers, whatever a caller passes.
    """
    if not enabled():
        return
    clean: dict[str, Any] = {}
    for key, value in keys.items():
        if key not in CONTEXT_KEYS or isinstance(value, bool):
            continue
        if isinstance(value, int):
            clean[key] = value
        elif isinstance(value, str) and value and value.isprintable():
            clean[key] = value[:MAX_ID_CHARS]
    if clean:
        _bound.update(clean)
        try:
            logger().append_keys(**clean)
        except Exception:  # never fail the request over a log field
            logging.getLogger(SERVICE).debug("binding %s failed", sorted(clean), exc_info=True)


# --- metrics ---------------------------------------------------------------------------------


def count(name: str, value: float = 1, *, dimension: tuple[str, str] | None = None) -> None:
    """Add ``value`` to counter ``name`` (with one extra ``dimension``) in this invocation."""
    if not enabled() or value == 0:
        return
    group = _counts.setdefault(dimension, {})
    group[(name, "Count")] = group.get((name, "Count"), 0) + value


def gauge(name: str, value: float) -> None:
    """Set gauge ``name`` (a level, not a count: zero is written too) in this invocation."""
    if not enabled():
        return
    _counts.setdefault(None, {})[(name, "Count")] = value


def timing(name: str, milliseconds: float, *, dimension: tuple[str, str] | None = None) -> None:
    """Record one duration sample of ``name`` in this invocation."""
    if not enabled():
        return
    _timings.setdefault(dimension, {}).setdefault(name, []).append(milliseconds)


def flush() -> int:
    """Write this invocation's metrics as EMF lines (one per dimension value); forget them."""
    if not _counts and not _timings:
        return 0
    from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

    namespace = os.environ.get(NAMESPACE_ENV) or DEFAULT_NAMESPACE
    written = 0
    for dimension in sorted({*_counts, *_timings}, key=lambda d: d or ("", "")):
        blob = EphemeralMetrics(namespace=namespace, service=SERVICE)
        if dimension is not None:
            blob.add_dimension(name=dimension[0], value=dimension[1])
        for (name, _unit), total in sorted(_counts.get(dimension, {}).items()):
            blob.add_metric(name=name, unit=MetricUnit.Count, value=total)
        for name, samples in sorted(_timings.get(dimension, {}).items()):
            for sample in samples:
                blob.add_metric(name=name, unit=MetricUnit.Milliseconds, value=sample)
        blob.flush_metrics()
        written += 1
    _counts.clear()
    _timings.clear()
    return written


# --- what the application reports --------------------------------------------------------------


def action_applied(kind: str) -> None:
    """A player's action (bid, liar, agree, resign, a Poker stage) was committed."""
    count("Actions", dimension=("kind", kind))


def conflict() -> None:
    """A conditional room write lost a race (a client got 409, or the server retried)."""
    count("Conflicts")


def room_committed(room: Any, version: int, events: list[dict[str, Any]]) -> None:
    """A room change was written: count what its events say happened; bind the version."""
    if not enabled():
        return
    bind(room_id=getattr(room, "id", None), version=version)
    rules = str(getattr(getattr(room, "settings", None), "rules", "unknown"))
    for event in events:
        kind = event.get("type")
        if kind == "turn_timed_out":
            count("TimeoutsApplied")
        elif kind == "game_started":
            count("GamesStarted", dimension=("rules", rules))
        elif kind == "game_finished":
            count("GamesFinished", dimension=("rules", rules))


GAUGE_LIMIT = 1000
"""Rooms the games gauge counts at most (one GSI query, one page)."""


def games_running(store: Store) -> int:
    """Count the rooms being played (up to ``GAUGE_LIMIT``) into the ``GamesRunning`` gauge."""
    running = len(store.list_rooms("playing", GAUGE_LIMIT))
    gauge("GamesRunning", running)
    return running


def overdue_rooms(found: int) -> None:
    """The sweeper's count of rooms whose deadline passed over a minute ago (``OverdueRooms``):
    each is a wake-up that was lost; zero is written too, so the alarm sees data."""
    gauge("OverdueRooms", found)


class ObservedNotifier:
    """A Notifier that counts pushes delivered, to gone connections, and failed."""

    def __init__(self, inner: Notifier) -> None:
        self.inner = inner

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """Send through the wrapped notifier, counting the outcome."""
        try:
            delivered = self.inner.send(connection_id, message)
        except Exception:
            count("PushesFailed")
            raise
        count("PushesSent" if delivered else "PushesGone")
        return delivered


class ObservedTimers:
    """A Timers port that counts schedules created and failed."""

    def __init__(self, inner: Timers) -> None:
        self.inner = inner

    def schedule(self, room_id: str, version: int, at_ms: int) -> None:
        """Schedule through the wrapped timers, counting the outcome."""
        try:
            self.inner.schedule(room_id, version, at_ms)
        except Exception:
            count("SchedulesFailed")
            raise
        count("SchedulesCreated")

    def cancel(self, room_id: str, version: int) -> None:
        """Cancel through the wrapped timers (not counted)."""
        self.inner.cancel(room_id, version)


def instrument_bots() -> Callable[[], None]:
    """Time every bot decision (``BotDecisionTime``, ms, by rules); return an undo function.

    The engine is pure and keeps no clock, so the timing wraps each rule system's
    ``bot_action`` on the shared rule-system objects, once per process.
    """
    from chalicelib.engine.systems import SYSTEMS

    undo: list[Callable[[], None]] = []
    for name, system in SYSTEMS.items():
        decide = system.bot_action
        if getattr(decide, "_observed", False):
            continue

        def timed(*args: Any, _decide: Any = decide, _name: str = name, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return _decide(*args, **kwargs)
            finally:
                timing(
                    "BotDecisionTime",
                    (time.perf_counter() - start) * 1000,
                    dimension=("rules", _name),
                )

        timed._observed = True  # type: ignore[attr-defined]
        setattr(system, "bot_action", timed)  # noqa: B010 (an instance attribute on purpose)
        undo.append(functools.partial(delattr, system, "bot_action"))

    def restore() -> None:
        for step in undo:
            step()

    return restore


# --- the middleware ----------------------------------------------------------------------------


def around_invocation(event: Any, get_response: Callable[[Any], Any]) -> Any:
    """Chalice middleware body: bind identifiers, run the handler, log one line, flush metrics."""
    if not enabled():
        return get_response(event)
    global _cold
    started = time.perf_counter()
    status: Any = "error"
    try:
        _reset()
        if _cold:
            _cold = False
            _undo_bots.append(instrument_bots())
            count("ColdStart")
        bind(**invocation_keys(event))
    except Exception:  # observability must never fail a request
        logging.getLogger(SERVICE).debug("binding the log context failed", exc_info=True)
    try:
        response = get_response(event)
        status = status_of(response)
        return response
    finally:
        try:
            logger().info(
                "invocation done",
                extra={"status": status, "duration_ms": round(_ms_since(started), 1)},
            )
        except Exception:
            logging.getLogger(SERVICE).debug("the invocation log line failed", exc_info=True)
        try:
            flush()
        except Exception:
            logging.getLogger(SERVICE).debug("flushing metrics failed", exc_info=True)
        finally:
            _reset()


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def status_of(response: Any) -> Any:
    """The HTTP-like status of a handler's answer (REST Response, WebSocket dict, timer dict)."""
    code = getattr(response, "status_code", None)
    if code is None and isinstance(response, dict):
        code = response.get("statusCode")
        if code is None:
            return "error" if "error" in response else "ok"
    return code if code is not None else "ok"


def invocation_keys(event: Any) -> dict[str, Any]:
    """Identifiers of one Chalice event: REST Request, WebSocket event or pure Lambda event."""
    context = getattr(event, "lambda_context", None) or getattr(event, "context", None)
    keys: dict[str, Any] = {
        "request_id": getattr(context, "aws_request_id", None),
        "function_version": os.environ.get("AWS_LAMBDA_FUNCTION_VERSION"),
    }
    request_context = getattr(event, "context", None)
    if isinstance(request_context, dict) and "resourcePath" in request_context:  # REST
        keys["api_request_id"] = request_context.get("requestId")
        keys["route"] = f"{request_context.get('httpMethod')} {request_context['resourcePath']}"
        keys["room_id"] = (getattr(event, "uri_params", None) or {}).get("room_id")
        return keys
    raw = event.to_dict() if hasattr(event, "to_dict") else {}
    ws = raw.get("requestContext") if isinstance(raw, dict) else None
    if isinstance(ws, dict) and "connectionId" in ws:  # WebSocket
        keys["api_request_id"] = ws.get("requestId")
        keys["route"] = ws.get("routeKey") or ws.get("eventType")
        keys["connection_id"] = ws["connectionId"]
        keys["room_id"] = _room_of_message(raw.get("body"))
        return keys
    if isinstance(raw, dict):  # the room timer's {"room_id", "version"}
        keys["route"] = getattr(context, "function_name", None) or "lambda"
        keys["room_id"] = raw.get("room_id")
        keys["version"] = raw.get("version")
    return keys


def _room_of_message(body: Any) -> str | None:
    """The ``room_id`` of a small client message, if it has one (never raises)."""
    if not isinstance(body, str) or len(body) > 4096 or "room_id" not in body:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    room = data.get("room_id") if isinstance(data, dict) else None
    return room if isinstance(room, str) and len(room) <= 64 else None
