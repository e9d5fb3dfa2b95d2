"""Structured logs and EMF metrics, captured in process from real invocations of the app.

Observability is on only in Lambda; each test turns it on with ``observability.enable`` and
reads what the invocations print (Powertools writes log lines and EMF blobs to stdout).
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib import observability, wiring
from chalicelib.engine import systems as engine_rules
from chalicelib.ports import VersionConflict
from tests.realtime.conftest import RealtimeEnv

Line = dict[str, Any]


@pytest.fixture
def observed(rt: RealtimeEnv) -> Iterator[RealtimeEnv]:
    """The realtime environment with observability on and pushes/schedules counted."""
    wiring.set_deps(wiring.observed(rt.deps))
    observability.enable()
    yield rt
    observability.disable()


def lines(text: str) -> list[Line]:
    """Every stdout line (each must be JSON: logs and EMF blobs alike)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def invocation_lines(text: str) -> list[Line]:
    """The one log line each invocation ends with."""
    return [line for line in lines(text) if line.get("message") == "invocation done"]


def emf(text: str) -> list[Line]:
    """The EMF blobs (CloudWatch embedded metric format) printed."""
    return [line for line in lines(text) if "_aws" in line]


def metric_total(blobs: list[Line], name: str, **dims: str) -> float:
    """Sum of metric ``name`` over the blobs whose dimensions include ``dims``."""
    total = 0.0
    for blob in blobs:
        declared = {m["Name"] for d in blob["_aws"]["CloudWatchMetrics"] for m in d["Metrics"]}
        if name in declared and all(blob.get(k) == v for k, v in dims.items()):
            value = blob[name]
            total += sum(value) if isinstance(value, list) else value
    return total


def samples(blobs: list[Line], name: str) -> list[float]:
    """Every sample of a timing metric."""
    out: list[float] = []
    for blob in blobs:
        if name in blob:
            value = blob[name]
            out.extend(value if isinstance(value, list) else [value])
    return out


def start_game(rt: RealtimeEnv, bots: int = 2) -> tuple[str, str, Line]:
    """One registered host with bots, started; (room id, token, host's view)."""
    token = rt.register("watcher")
    room = rt.ok("POST", "/rooms", {"settings": {}}, token, 201)
    for _ in range(bots):
        rt.ok("POST", f"/rooms/{room['id']}/bots", {"level": "easy"}, token, 201)
    rt.ok("POST", f"/rooms/{room['id']}/start", None, token)
    return room["id"], token, rt.ok("GET", f"/rooms/{room['id']}", None, token)


def human_turn(rt: RealtimeEnv, room_id: str, token: str) -> Line:
    """Play until it is the human's turn (bots answer inside each change); the view then."""
    for _ in range(20):
        view = rt.ok("GET", f"/rooms/{room_id}", None, token)
        game = view["game"]
        if game["phase"] == "bidding" and game["turn"]["player_id"] == view["me"]["player_id"]:
            return view
        rt.clock.advance(120_000)
        rt.ok("POST", f"/rooms/{room_id}/tick", None)
    raise AssertionError("the human never got a turn")


def opening_bid(view: Line) -> Line:
    bid = view["game"]["current_bid"]
    quantity = 1 if bid is None else bid["quantity"] + 1
    return {"type": "bid", "quantity": quantity, "face": 6, "turn": view["game"]["turn"]["number"]}


# --- logs ------------------------------------------------------------------------------------


def test_a_rest_log_line_is_json_with_request_route_room_user_and_version_and_no_dice(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    rt = observed
    room_id, token, _ = start_game(rt)
    view = human_turn(rt, room_id, token)
    capsys.readouterr()
    rt.ok("POST", f"/rooms/{room_id}/actions", opening_bid(view), token)
    out = capsys.readouterr().out

    (line,) = invocation_lines(out)
    assert line["route"] == "POST /rooms/{room_id}/actions"
    assert line["room_id"] == room_id
    assert line["user_id"] == rt.user_id(token)
    assert isinstance(line["version"], int) and line["version"] > view["version"]
    assert line["request_id"]
    assert line["status"] == 200
    assert line["service"] == "liars-lies" and line["level"] == "INFO"
    # Nothing secret: no dice or hands, no token, in any line the invocation printed.
    hand = view["me"]["dice"]
    assert hand, "the viewer has dice to leak"
    for printed in lines(out):
        assert not {"dice", "hand", "hands", "token", "passcode"} & set(printed)
    assert token not in out
    assert json.dumps(hand) not in out and json.dumps(hand, separators=(",", ":")) not in out


def test_a_websocket_log_line_names_the_connection_route_and_room(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    rt = observed
    room_id, token, _ = start_game(rt)
    assert rt.connect("conn-1", rt.ticket(token)) == 200
    capsys.readouterr()
    event = rt.ws_event("conn-1", "$default", json.dumps({"action": "tick", "room_id": room_id}))
    event["requestContext"]["requestId"] = "api-req-7"
    rt.client.lambda_.invoke("ws_message", event)

    (line,) = invocation_lines(capsys.readouterr().out)
    assert line["connection_id"] == "conn-1"
    assert line["route"] == "$default"
    assert line["room_id"] == room_id
    assert line["api_request_id"] == "api-req-7"


def test_the_timer_log_line_names_the_room_and_scheduled_version(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    rt = observed
    room_id, _, view = start_game(rt)
    capsys.readouterr()
    rt.fire(room_id, view["version"])
    (line,) = invocation_lines(capsys.readouterr().out)
    assert line["room_id"] == room_id
    assert line["version"] == view["version"]
    assert line["route"]


def test_secrets_and_dice_in_any_logged_text_are_scrubbed(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlLXZhbHVl"
    log = logging.getLogger("chalicelib.service")
    log.info("state %s header Bearer %s", {"dice": [3, 5, 6], "passcode": "opensesame"}, jwt)
    log.info("with extras", extra={"hand": [1, 2], "ticket": "tkt-123"})
    first, second = lines(capsys.readouterr().out)
    assert "[3, 5, 6]" not in first["message"] and "opensesame" not in first["message"]
    assert jwt not in first["message"] and "[redacted]" in first["message"]
    assert second["hand"] == "[redacted]" and second["ticket"] == "[redacted]"


def test_bind_keeps_only_identifier_keys_and_values() -> None:
    stream = io.StringIO()
    observability.enable(stream)
    try:
        observability.bind(room_id="r1", user_id=["not", "an", "id"], dice=[1, 2], version=3)
        logging.getLogger("liars-lies").info("hello")
    finally:
        observability.disable()
    (line,) = lines(stream.getvalue())
    assert line["room_id"] == "r1" and line["version"] == 3
    assert "user_id" not in line and "dice" not in line


def test_outside_lambda_nothing_is_counted_or_printed(
    rt: RealtimeEnv, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    observability.disable()
    start_game(rt)
    assert capsys.readouterr().out == ""
    assert observability.flush() == 0


def test_a_broken_logger_never_fails_a_request(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rt = observed

    def broken() -> Any:
        raise RuntimeError("no logger today")

    monkeypatch.setattr(observability, "logger", broken)
    token = rt.register("still-works")  # bind() and the final line both fail quietly
    room = rt.ok("POST", "/rooms", {"settings": {}}, token, 201)
    assert room["id"]
    # The metrics of the invocation are still written.
    assert emf(capsys.readouterr().out)


# --- metrics ---------------------------------------------------------------------------------


def test_metrics_are_flushed_at_the_end_of_each_invocation(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    rt = observed
    room_id, token, _ = start_game(rt)
    started = emf(capsys.readouterr().out)
    assert metric_total(started, "GamesStarted", rules="classic") == 1

    for _ in range(2):
        view = human_turn(rt, room_id, token)
        capsys.readouterr()
        rt.ok("POST", f"/rooms/{room_id}/actions", opening_bid(view), token)
        blobs = emf(capsys.readouterr().out)
        # Each invocation prints its own count, never a running total carried over.
        assert metric_total(blobs, "Actions", kind="bid") == 1
        assert all(b["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "LiarsLies" for b in blobs)
        # Nothing is left for the next invocation.
        assert observability.flush() == 0


def test_pushes_schedules_and_bot_decisions_are_counted(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    rt = observed
    room_id, token, _ = start_game(rt)
    rt.watch("conn-1", room_id, token)
    view = human_turn(rt, room_id, token)
    capsys.readouterr()
    rt.ok("POST", f"/rooms/{room_id}/actions", opening_bid(view), token)
    blobs = emf(capsys.readouterr().out)
    assert metric_total(blobs, "PushesSent") >= 1
    assert metric_total(blobs, "SchedulesCreated") >= 1
    # Two bots answer the human's bid before it is the human's turn again (or the round ends).
    decisions = samples(blobs, "BotDecisionTime")
    assert decisions and all(ms >= 0 for ms in decisions)


def test_a_lost_race_counts_a_conflict(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rt = observed
    room_id, token, _ = start_game(rt)
    view = human_turn(rt, room_id, token)
    save_room = rt.store.save_room

    def lose(room: str, *args: Any, **kwargs: Any) -> int:
        raise VersionConflict(room, args[2] if len(args) > 2 else 0, rt.store.get_room(room))

    monkeypatch.setattr(rt.store, "save_room", lose)
    capsys.readouterr()
    resp = rt.client.http.post(
        f"/rooms/{room_id}/actions",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        body=json.dumps(opening_bid(view)),
    )
    monkeypatch.setattr(rt.store, "save_room", save_room)
    assert resp.status_code == 409
    blobs = emf(capsys.readouterr().out)
    assert metric_total(blobs, "Conflicts") == 1
    assert metric_total(blobs, "Actions") == 0


def test_the_games_gauge_reports_the_rooms_being_played(
    observed: RealtimeEnv, capsys: pytest.CaptureFixture[str]
) -> None:
    rt = observed
    start_game(rt)
    rt.ok("POST", "/rooms", {"settings": {}}, rt.register("waiting-host"), 201)
    capsys.readouterr()
    event = {
        "version": "0",
        "id": "e1",
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": "2026-12-01T10:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {},
    }
    rt.client.lambda_.invoke("games_gauge", event)
    blobs = emf(capsys.readouterr().out)
    assert metric_total(blobs, "GamesRunning") == 1  # the waiting room is not counted


def test_a_gauge_of_zero_is_still_written(capsys: pytest.CaptureFixture[str]) -> None:
    observability.enable()
    try:
        observability.gauge("GamesRunning", 0)
        assert observability.flush() == 1
    finally:
        observability.disable()
    assert samples(emf(capsys.readouterr().out), "GamesRunning") == [0.0]


class GoneNotifier:
    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        if connection_id == "boom":
            raise RuntimeError("network")
        return connection_id != "gone"


class FailingTimers:
    def schedule(self, room_id: str, version: int, at_ms: int) -> None:
        if room_id == "bad":
            raise RuntimeError("throttled")

    def cancel(self, room_id: str, version: int) -> None:
        return None


def test_pushes_gone_and_failed_and_schedules_failed_are_counted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    observability.enable()
    try:
        notifier = observability.ObservedNotifier(GoneNotifier())
        timers = observability.ObservedTimers(FailingTimers())
        assert notifier.send("ok", {}) is True
        assert notifier.send("gone", {}) is False
        with pytest.raises(RuntimeError):
            notifier.send("boom", {})
        timers.schedule("good", 1, 0)
        with pytest.raises(RuntimeError):
            timers.schedule("bad", 1, 0)
        observability.flush()
    finally:
        observability.disable()
    blobs = emf(capsys.readouterr().out)
    assert metric_total(blobs, "PushesSent") == 1
    assert metric_total(blobs, "PushesGone") == 1
    assert metric_total(blobs, "PushesFailed") == 1
    assert metric_total(blobs, "SchedulesCreated") == 1
    assert metric_total(blobs, "SchedulesFailed") == 1


def test_bot_timing_is_removed_again_by_its_undo() -> None:
    system = engine_rules.rule_system("classic")
    original = system.bot_action
    undo = observability.instrument_bots()
    assert getattr(system.bot_action, "_observed", False)
    undo()
    assert system.bot_action == original
    assert "bot_action" not in vars(system)
