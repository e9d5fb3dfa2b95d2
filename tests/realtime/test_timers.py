"""Room timers: one EventBridge schedule per next deadline, and a timer handler that changes
nothing unless a deadline has passed (stale, duplicate and early deliveries are no-ops)."""

from __future__ import annotations

import json
from typing import Any

from chalicelib import wiring
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import FINAL_REVEAL_MS
from tests.realtime.conftest import GROUP, ROLE_ARN, TIMER_ARN, RealtimeEnv, at_of, parse_iso
from tests.realtime.test_websocket import token_to_act, two_player_room

TURN_MS = 30_000


def deadline_of(view: dict[str, Any]) -> int:
    """The room's next deadline from a view (turn, break or final reveal)."""
    return parse_iso(view["game"]["deadline"])


def only_schedule(rt: RealtimeEnv, rid: str) -> tuple[int, dict[str, Any]]:
    """The one schedule stored for the room: (version, schedule)."""
    found = rt.schedules(rid)
    assert len(found) == 1, sorted(found)
    [(version, schedule)] = found.items()
    return version, schedule


def assert_wakes_at_deadline(rt: RealtimeEnv, rid: str) -> dict[str, Any]:
    """The room has exactly one schedule, for its current version and its next deadline."""
    _, version = rt.room_state(rid)
    view = rt.ok("GET", f"/rooms/{rid}")
    assert view["version"] == version
    scheduled_version, schedule = only_schedule(rt, rid)
    assert scheduled_version == version
    assert schedule["ScheduleExpression"] == at_of(deadline_of(view))
    return view


def bid(rt: RealtimeEnv, rid: str, tokens: list[str], quantity: int, face: int) -> str:
    """The player to act bids; their token."""
    token, view = token_to_act(rt, rid, tokens)
    rt.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "bid", "quantity": quantity, "face": face, "turn": view["game"]["turn"]["number"]},
        token,
    )
    return token


def liar(rt: RealtimeEnv, rid: str, tokens: list[str]) -> str:
    """The player to act calls Liar!; their token."""
    token, view = token_to_act(rt, rid, tokens)
    rt.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "liar", "turn": view["game"]["turn"]["number"]},
        token,
    )
    return token


def events_pushed(rt: RealtimeEnv, cid: str) -> list[str]:
    """Types of every event pushed to a connection, in order."""
    return [
        e["type"] for m in rt.notifier.messages_for(cid) if m["type"] == "room" for e in m["events"]
    ]


# --- schedules ------------------------------------------------------------------------------


def test_start_schedules_the_first_turn_deadline_with_the_agreed_shape(rt: RealtimeEnv) -> None:
    rid, _ = two_player_room(rt, humans=2)
    view = assert_wakes_at_deadline(rt, rid)
    _, schedule = only_schedule(rt, rid)
    assert schedule["FlexibleTimeWindow"] == {"Mode": "OFF"}
    assert schedule["ActionAfterCompletion"] == "DELETE"
    assert schedule["GroupName"] == GROUP
    target = schedule["Target"]
    assert target["Arn"] == TIMER_ARN and target["RoleArn"] == ROLE_ARN
    assert json.loads(target["Input"]) == {"room_id": rid, "version": view["version"]}
    assert 0 < target["RetryPolicy"]["MaximumRetryAttempts"] <= 5
    assert deadline_of(view) == rt.clock.now_ms() + TURN_MS


def test_each_bid_moves_the_schedule_to_the_new_turn_deadline(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, humans=3)
    before = assert_wakes_at_deadline(rt, rid)
    rt.clock.advance(7_000)
    bid(rt, rid, tokens, 1, 4)
    after = assert_wakes_at_deadline(rt, rid)
    assert deadline_of(after) == deadline_of(before) + 7_000
    rt.clock.advance(2_500)
    bid(rt, rid, tokens, 2, 4)
    assert deadline_of(assert_wakes_at_deadline(rt, rid)) == rt.clock.now_ms() + TURN_MS


def test_waiting_rooms_have_no_schedule(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, started=False)
    rt.ok("PUT", f"/rooms/{rid}/ready", {"ready": False}, tokens[1])
    assert rt.schedules(rid) == {}


# --- the timer handler ------------------------------------------------------------------------


def test_the_timer_after_the_deadline_applies_exactly_one_timeout(rt: RealtimeEnv) -> None:
    rid, _ = two_player_room(rt, humans=2)
    rt.watch("cs", rid)
    view = rt.ok("GET", f"/rooms/{rid}")
    version = view["version"]
    rt.clock.now = deadline_of(view) + 20_000  # late, but before the next turn's deadline
    out = rt.fire(rid, version)
    assert out["version"] == version + 1
    after = rt.ok("GET", f"/rooms/{rid}")
    assert after["game"]["current_bid"] == {
        "player_id": view["game"]["turn"]["player_id"],
        "quantity": 1,
        "face": 1,
    }
    assert after["game"]["turn"]["number"] == view["game"]["turn"]["number"] + 1
    # The next turn counts from the missed deadline, not from when the timer arrived.
    assert deadline_of(after) == deadline_of(view) + TURN_MS
    assert events_pushed(rt, "cs").count("turn_timed_out") == 1
    assert_wakes_at_deadline(rt, rid)


def test_the_timeout_with_a_bid_standing_is_liar(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, humans=2)
    bid(rt, rid, tokens, 1, 6)
    view = rt.ok("GET", f"/rooms/{rid}")
    rt.watch("cs", rid)
    rt.clock.now = deadline_of(view) + 1
    rt.fire(rid, view["version"])
    pushed = events_pushed(rt, "cs")
    assert pushed.count("turn_timed_out") == 1 and pushed.count("liar_called") == 1
    assert rt.ok("GET", f"/rooms/{rid}")["game"]["last_reveal"]["round"] == 1


def test_the_timer_before_the_deadline_changes_nothing(rt: RealtimeEnv) -> None:
    rid, _ = two_player_room(rt, humans=2)
    view = rt.ok("GET", f"/rooms/{rid}")
    state, version = rt.room_state(rid)
    pushed = len(rt.notifier.sent)
    rt.clock.now = deadline_of(view) - 1
    assert rt.fire(rid, version)["version"] == version
    assert rt.room_state(rid) == (state, version)
    assert len(rt.notifier.sent) == pushed
    assert_wakes_at_deadline(rt, rid)


def test_an_early_delivery_arms_the_wake_up_again(rt: RealtimeEnv) -> None:
    rid, _ = two_player_room(rt, humans=2)
    view = rt.ok("GET", f"/rooms/{rid}")
    _, version = rt.room_state(rid)
    # The scheduler deletes a schedule once it has fired (ActionAfterCompletion DELETE).
    rt.timers.cancel(rid, version)
    rt.clock.now = deadline_of(view) - 1
    rt.fire(rid, version)
    assert_wakes_at_deadline(rt, rid)


def test_the_timer_twice_is_the_same_as_once(rt: RealtimeEnv) -> None:
    rid, _ = two_player_room(rt, humans=2)
    view = rt.ok("GET", f"/rooms/{rid}")
    rt.clock.now = deadline_of(view) + 1_000
    rt.fire(rid, view["version"])
    once = rt.room_state(rid)
    rt.fire(rid, view["version"])  # a duplicate delivery
    rt.fire(rid, view["version"] + 1)  # and the next version's, early
    assert rt.room_state(rid) == once


def test_a_stale_timer_changes_nothing(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, humans=3)
    old = rt.ok("GET", f"/rooms/{rid}")
    rt.clock.advance(10_000)
    bid(rt, rid, tokens, 1, 2)
    moved = rt.room_state(rid)
    rt.clock.now = deadline_of(old) + 1  # the old turn's deadline passed; the new one has not
    rt.fire(rid, old["version"])
    assert rt.room_state(rid) == moved


def test_a_timer_for_a_room_that_is_gone_is_a_no_op(rt: RealtimeEnv) -> None:
    assert rt.fire("nosuchroom", 3)["gone"] is True
    assert "error" in rt.client.lambda_.invoke("room_timer", {}).payload


def test_tick_over_websocket_applies_the_passed_deadline(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, humans=2)
    rt.watch("c1", rid, tokens[0])
    rt.watch("cs", rid)
    view = rt.ok("GET", f"/rooms/{rid}")
    rt.clock.now = deadline_of(view) - 1
    [early] = rt.send("c1", {"action": "tick", "room_id": rid})
    assert early["room"]["version"] == view["version"]
    rt.clock.now = deadline_of(view)
    answer = rt.send("c1", {"action": "tick", "room_id": rid})
    assert answer[-1]["room"]["version"] == view["version"] + 1
    assert answer[-1]["room"]["me"]["player_id"] is not None
    assert events_pushed(rt, "cs").count("turn_timed_out") == 1


def test_tick_over_rest_applies_the_passed_deadline(rt: RealtimeEnv) -> None:
    rid, _ = two_player_room(rt, humans=2)
    view = rt.ok("GET", f"/rooms/{rid}")
    rt.clock.now = deadline_of(view)
    after = rt.ok("POST", f"/rooms/{rid}/tick")
    assert after["game"]["turn"]["number"] == view["game"]["turn"]["number"] + 1
    assert_wakes_at_deadline(rt, rid)


# --- catching up ------------------------------------------------------------------------------


def _fresh_game(rt: RealtimeEnv, tokens: list[str], t0: int) -> str:
    """The same two users start an identical game at ``t0`` with identical dice."""
    rt.clock.now = t0
    wiring.set_deps(
        wiring.Deps(
            store=rt.store,
            notifier=rt.notifier,
            timers=rt.timers,
            clock=rt.clock,
            roller=SeededRoller(2024),
        )
    )
    rid: str = rt.ok("POST", "/rooms", {"settings": {"starting_dice": 5}}, tokens[0], 201)["id"]
    rt.ok("POST", f"/rooms/{rid}/join", {}, tokens[1])
    rt.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, tokens[1])
    rt.ok("POST", f"/rooms/{rid}/start", None, tokens[0])
    return rid


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "id"}


def test_a_room_left_alone_catches_up_to_what_punctual_timers_give(rt: RealtimeEnv) -> None:
    tokens = [rt.register("ann"), rt.register("bob")]
    t0 = 1_800_000_000_000
    end = t0 + 10 * TURN_MS + 5_000

    punctual = _fresh_game(rt, tokens, t0)
    fired = 0
    while True:
        view = rt.ok("GET", f"/rooms/{punctual}")
        if view["status"] != "playing" or deadline_of(view) > end:
            break
        scheduled_version, schedule = only_schedule(rt, punctual)
        assert schedule["ScheduleExpression"] == at_of(deadline_of(view))
        rt.clock.now = deadline_of(view)
        rt.fire(punctual, scheduled_version)
        fired += 1
    rt.clock.now = end
    rt.fire(punctual)

    late = _fresh_game(rt, tokens, t0)
    rt.clock.now = end
    rt.fire(late)

    assert fired >= 10
    punctual_state, punctual_version = rt.room_state(punctual)
    late_state, late_version = rt.room_state(late)
    assert late_version < punctual_version  # one write instead of one per deadline
    assert rt.ok("GET", f"/rooms/{late}")["game"]["round"] >= 3
    assert _comparable(late_state) == _comparable(punctual_state)
    if rt.ok("GET", f"/rooms/{late}")["status"] == "playing":
        assert_wakes_at_deadline(rt, late)


# --- breaks and the final reveal ----------------------------------------------------------------


def test_auto_players_agree_at_once_so_the_next_round_starts_without_a_break(
    rt: RealtimeEnv,
) -> None:
    rid, tokens = two_player_room(rt, humans=2)
    bid(rt, rid, tokens, 1, 5)
    liar(rt, rid, tokens)
    view = assert_wakes_at_deadline(rt, rid)
    assert view["game"]["phase"] == "bidding" and view["game"]["round"] == 2
    assert deadline_of(view) == rt.clock.now_ms() + TURN_MS


def _manual_break(rt: RealtimeEnv, *, bots: int = 0) -> tuple[str, list[str], dict[str, Any]]:
    """Two humans (the first in Manual mode, plus ``bots``) reach a break; (room, tokens, view)."""
    tokens = [rt.register("manual"), rt.register("auto")]
    rt.ok("PATCH", "/me/preferences", {"continue_mode": "manual"}, tokens[0])
    rid = rt.ok("POST", "/rooms", {}, tokens[0], 201)["id"]
    rt.ok("POST", f"/rooms/{rid}/join", {}, tokens[1])
    rt.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, tokens[1])
    for _ in range(bots):
        rt.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, tokens[0], 201)
    rt.ok("POST", f"/rooms/{rid}/start", None, tokens[0])
    for _ in range(50):
        view = rt.ok("GET", f"/rooms/{rid}")
        if view["game"]["phase"] == "break":
            return rid, tokens, view
        current = view["game"]["current_bid"]
        if current is None:
            bid(rt, rid, tokens, 1, 2)
        else:
            liar(rt, rid, tokens)
    raise AssertionError("no break came")


def test_a_manual_player_votes_and_the_break_ends_when_everyone_agreed(rt: RealtimeEnv) -> None:
    rid, tokens, view = _manual_break(rt)
    manual = rt.ok("GET", f"/rooms/{rid}", None, tokens[0])["me"]["player_id"]
    assert manual not in view["game"]["break"]["agreed"]
    assert len(view["game"]["break"]["agreed"]) == 1  # the Auto player
    assert assert_wakes_at_deadline(rt, rid)["game"]["phase"] == "break"
    rt.clock.advance(4_000)
    rt.ok("POST", f"/rooms/{rid}/actions", {"type": "agree"}, tokens[0])
    after = assert_wakes_at_deadline(rt, rid)
    assert after["game"]["phase"] == "bidding"
    assert deadline_of(after) == rt.clock.now_ms() + TURN_MS


def test_bots_agree_at_once(rt: RealtimeEnv) -> None:
    _, _, view = _manual_break(rt, bots=1)
    bots = [p["id"] for p in view["players"] if p["kind"] == "bot" and not p["eliminated"]]
    assert bots and set(bots) <= set(view["game"]["break"]["agreed"])


def test_the_break_timer_ends_the_break(rt: RealtimeEnv) -> None:
    rid, _, view = _manual_break(rt)
    rt.watch("cs", rid)
    version, _ = only_schedule(rt, rid)
    rt.clock.now = deadline_of(view) - 1
    rt.fire(rid, version)
    assert rt.ok("GET", f"/rooms/{rid}")["game"]["phase"] == "break"
    rt.clock.now = deadline_of(view)
    rt.fire(rid, version)
    after = assert_wakes_at_deadline(rt, rid)
    assert after["game"]["phase"] == "bidding"
    assert deadline_of(after) == deadline_of(view) + TURN_MS
    assert events_pushed(rt, "cs") == ["break_ended", "round_started"]


def test_the_final_reveal_ends_the_game_through_the_timer(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, humans=2, settings={"starting_dice": 1})
    bid(rt, rid, tokens, 1, 1)
    liar(rt, rid, tokens)
    view = assert_wakes_at_deadline(rt, rid)
    assert view["game"]["phase"] == "final_reveal"
    assert deadline_of(view) == rt.clock.now_ms() + FINAL_REVEAL_MS == rt.clock.now_ms() + 3_000
    rt.watch("cs", rid)
    version, _ = only_schedule(rt, rid)
    rt.clock.now = deadline_of(view) - 1
    rt.fire(rid, version)
    assert rt.ok("GET", f"/rooms/{rid}")["status"] == "playing"
    rt.clock.now = deadline_of(view)
    rt.fire(rid, version)
    finished = rt.ok("GET", f"/rooms/{rid}")
    assert finished["status"] == "finished" and finished["results"] is not None
    assert rt.schedules(rid) == {}  # nothing left to wake
    assert events_pushed(rt, "cs") == ["game_finished"]
