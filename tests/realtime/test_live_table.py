"""The live table over the WebSocket: every move announced once, with what it said, at its stamp.

A human against four bots and a signed-out spectator watch one room. Each hears every bid of a
round (bots' included) exactly once, in order, with quantity and face; no view, subscribe answer
or later push lists an earlier bid of the running round; a timeout is announced with the move
played for the seat; bots' moves are stamped a think time apart and the human's deadline counts
from the last stamp; every view and push carries ``server_time``.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from chalicelib.engine.model import BOT_THINK_MS
from chalicelib.settings import reset_settings
from tests.realtime.conftest import RealtimeEnv, parse_iso

MOVES = ("bid_placed", "liar_called")


def bot_room(rt: RealtimeEnv, bots: int = 4) -> tuple[str, str]:
    """A Manual human (the break waits for them) and ``bots`` bots, watched; (room id, token)."""
    token = rt.register("livehost")
    rt.ok("PATCH", "/me/preferences", {"continue_mode": "manual"}, token)
    rid = rt.ok("POST", "/rooms", {"settings": {"starting_dice": 3}}, token, 201)["id"]
    for _ in range(bots):
        rt.ok("POST", f"/rooms/{rid}/bots", {"level": "strong"}, token, 201)
    rt.watch("human", rid, token)
    rt.watch("spectator", rid)
    return rid, token


def bids_outside_reveal(node: Any) -> list[dict[str, Any]]:
    """Every bid-like object (with a quantity) in a game view, outside the last reveal."""
    if isinstance(node, list):
        return [b for item in node for b in bids_outside_reveal(item)]
    if not isinstance(node, dict):
        return []
    found = [node] if "quantity" in node else []
    for key, value in node.items():
        if key != "last_reveal":
            found += bids_outside_reveal(value)
    return found


def room_pushes(rt: RealtimeEnv, connection_id: str) -> list[dict[str, Any]]:
    return [m for m in rt.notifier.messages_for(connection_id) if m["type"] == "room"]


def play_round_one(rt: RealtimeEnv, rid: str, token: str) -> dict[str, Any]:
    """Start and let the human raise by one until round 1 is decided; the human's last view."""
    rt.ok("POST", f"/rooms/{rid}/start", None, token)
    for _ in range(50):
        v = rt.ok("GET", f"/rooms/{rid}", None, token)
        game = v["game"]
        if game["round"] > 1 or game["phase"] != "bidding":
            return v
        assert game["turn"]["player_id"] == v["me"]["player_id"]
        bid = game["current_bid"] or {"quantity": 0, "face": 6}
        rt.clock.now = parse_iso(game["turn"]["deadline"]) - 1000  # act just in time
        rt.ok(
            "POST",
            f"/rooms/{rid}/actions",
            {
                "type": "bid",
                "quantity": bid["quantity"] + 1,
                "face": bid["face"],
                "turn": game["turn"]["number"],
            },
            token,
        )
    raise AssertionError("round 1 did not end")


def test_a_human_and_a_spectator_hear_every_bid_of_a_round_once_in_order(
    rt: RealtimeEnv,
) -> None:
    rid, token = bot_room(rt)
    after = play_round_one(rt, rid, token)
    reveal = after["game"]["last_reveal"]
    assert reveal is not None and reveal["round"] == 1
    names = {p["id"]: p["kind"] for p in after["players"]}
    heard = {}
    for conn in ("human", "spectator"):
        bids = [
            e
            for m in room_pushes(rt, conn)
            for e in m["events"]
            if e["type"] == "bid_placed" and e["round"] == 1
        ]
        heard[conn] = [(e["player_id"], e["quantity"], e["face"], e["at"]) for e in bids]
        # every bid of the round, each once, with what it said, in the order made
        for row in reveal["rows"]:
            mine = [(q, f) for p, q, f, _ in heard[conn] if p == row["player_id"]]
            assert mine == [(b["quantity"], b["face"]) for b in row["bids"]], conn
        assert len(set(heard[conn])) == len(heard[conn])
        assert [a for *_, a in heard[conn]] == sorted(a for *_, a in heard[conn])
        assert {names[p] for p, *_ in heard[conn]} == {"human", "bot"}
        assert all(e["by"] == ("bot" if names[e["player_id"]] == "bot" else "player") for e in bids)
    assert heard["human"] == heard["spectator"]
    assert len(heard["human"]) >= 3


def test_no_view_subscribe_answer_or_later_push_lists_an_earlier_bid(rt: RealtimeEnv) -> None:
    rid, token = bot_room(rt)
    rt.ok("POST", f"/rooms/{rid}/start", None, token)
    v = rt.ok("GET", f"/rooms/{rid}", None, token)
    for _ in range(3):
        game = v["game"]
        if game["phase"] != "bidding":
            break
        bid = game["current_bid"] or {"quantity": 0, "face": 6}
        rt.ok(
            "POST",
            f"/rooms/{rid}/actions",
            {
                "type": "bid",
                "quantity": bid["quantity"] + 1,
                "face": bid["face"],
                "turn": game["turn"]["number"],
            },
            token,
        )
        v = rt.ok("GET", f"/rooms/{rid}", None, token)
    # a late arrival subscribes mid-round: the answer lists no event and only the current bid
    rt.watch("late", rid)
    answer = room_pushes(rt, "late")[0]
    assert answer["events"] == []
    game = answer["room"]["game"]
    current = game["current_bid"]
    assert bids_outside_reveal(game) == ([] if current is None else [current])
    for m in room_pushes(rt, "spectator"):
        later = m["room"]["game"] or {"current_bid": None}
        assert bids_outside_reveal(later) == [b for b in [later["current_bid"]] if b]
    # each push carries only the events of its own change: no bid is heard twice
    said = [
        (e["round"], e["player_id"], e["quantity"], e["face"])
        for m in room_pushes(rt, "spectator")
        for e in m["events"]
        if e["type"] == "bid_placed"
    ]
    assert said and len(said) == len(set(said))


def test_bots_moves_are_spaced_by_think_times_and_the_turn_clock_starts_at_the_last(
    rt: RealtimeEnv,
) -> None:
    rid, token = bot_room(rt)
    rt.ok("POST", f"/rooms/{rid}/start", None, token)
    gaps: list[int] = []
    for m in room_pushes(rt, "spectator"):
        stamps = [(e, parse_iso(e["at"])) for e in m["events"]]
        for (_, ta), (b, tb) in itertools.pairwise(stamps):
            if b.get("by") == "bot" and b["type"] in MOVES:
                gaps.append(tb - ta)
        game = m["room"]["game"]
        if stamps and game and game["phase"] == "bidding" and game["turn"]:
            assert parse_iso(game["turn"]["deadline"]) == stamps[-1][1] + 30_000
        assert isinstance(m["room"]["server_time"], int)
    assert gaps and all(BOT_THINK_MS[0] <= g <= BOT_THINK_MS[1] for g in gaps)


def test_a_timeout_is_announced_with_the_move_played_for_the_seat(rt: RealtimeEnv) -> None:
    rid, token = bot_room(rt, bots=1)
    rt.ok("POST", f"/rooms/{rid}/start", None, token)
    v = rt.ok("GET", f"/rooms/{rid}", None, token)
    assert v["server_time"] == rt.clock.now_ms()
    me = v["me"]["player_id"]
    # one bot: whoever opens, the turn is the human's now
    assert v["game"]["turn"]["player_id"] == me
    expected = (
        {"type": "liar"} if v["game"]["current_bid"] else {"type": "bid", "quantity": 1, "face": 1}
    )
    rt.clock.now = parse_iso(v["game"]["turn"]["deadline"]) + 5
    answer = rt.send("human", {"action": "tick", "room_id": rid})
    assert answer[0]["room"]["server_time"] == rt.clock.now_ms()
    pushed = room_pushes(rt, "spectator")[-1]["events"]
    timed_out = [e for e in pushed if e["type"] == "turn_timed_out"]
    assert timed_out and timed_out[0]["player_id"] == me and timed_out[0]["by"] == "timeout"
    assert timed_out[0]["action"] == expected
    played = pushed[pushed.index(timed_out[0]) + 1]
    assert played["type"] == ("liar_called" if expected["type"] == "liar" else "bid_placed")
    assert played["by"] == "timeout" and played["player_id"] == me


def test_the_configured_think_time_range_paces_the_game(
    rt: RealtimeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOT_THINK_MIN_MS", "40")
    monkeypatch.setenv("BOT_THINK_MAX_MS", "60")
    reset_settings()
    rid, token = bot_room(rt)
    rt.ok("POST", f"/rooms/{rid}/start", None, token)
    state, _ = rt.room_state(rid)
    assert state["game"]["pc"] == [40, 60]
    events = room_pushes(rt, "spectator")[-1]["events"]
    moves = [e for e in events if e["type"] in MOVES and e["by"] == "bot"]
    stamps = [parse_iso(e["at"]) for e in events]
    assert all(0 <= b - a <= 60 for a, b in itertools.pairwise(stamps))
    assert moves or state["game"]["tp"] == state["players"][0]["id"]
