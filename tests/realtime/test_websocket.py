"""WebSocket handlers through hand-built API Gateway events: tickets, messages, per-viewer pushes."""

from __future__ import annotations

import json
from typing import Any

from chalicelib.adapters.notifier import ApiGatewayNotifier
from tests.realtime.conftest import RealtimeEnv


def two_player_room(
    rt: RealtimeEnv,
    *,
    humans: int = 3,
    started: bool = True,
    settings: dict[str, Any] | None = None,
) -> tuple[str, list[str]]:
    """Register ``humans`` users in one room (no bots) and start it; (room id, tokens)."""
    tokens = [rt.register(f"player{i}") for i in range(humans)]
    rid = rt.ok("POST", "/rooms", {"settings": settings or {}}, tokens[0], 201)["id"]
    for t in tokens[1:]:
        rt.ok("POST", f"/rooms/{rid}/join", {}, t)
        rt.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, t)
    if started:
        rt.ok("POST", f"/rooms/{rid}/start", None, tokens[0])
    return rid, tokens


def token_to_act(rt: RealtimeEnv, rid: str, tokens: list[str]) -> tuple[str, dict[str, Any]]:
    """The token of the player whose turn it is, and that player's view."""
    for t in tokens:
        v = rt.ok("GET", f"/rooms/{rid}", None, t)
        if v["me"]["player_id"] == v["game"]["turn"]["player_id"]:
            return t, v
    raise AssertionError("nobody is to act")


def keys_anywhere(data: Any, key: str, path: str = "") -> list[tuple[str, Any]]:
    """Every (path, value) under ``key`` anywhere in a JSON document."""
    found: list[tuple[str, Any]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            if k == key:
                found.append((f"{path}.{k}", v))
            found += keys_anywhere(v, key, f"{path}.{k}")
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found += keys_anywhere(v, key, f"{path}[{i}]")
    return found


# --- connect ----------------------------------------------------------------------------------


def test_a_fresh_ticket_connects_as_its_user(rt: RealtimeEnv) -> None:
    token = rt.register("alice")
    assert rt.connect("c1", rt.ticket(token)) == 200
    conn = rt.store.get_connection("c1")
    assert conn is not None and conn.user_id == rt.user_id(token)


def test_a_reused_ticket_is_refused(rt: RealtimeEnv) -> None:
    ticket = rt.ticket(rt.register("alice"))
    assert rt.connect("c1", ticket) == 200
    assert rt.connect("c2", ticket) == 401
    assert rt.store.get_connection("c2") is None


def test_a_bad_empty_or_expired_ticket_is_refused(rt: RealtimeEnv) -> None:
    token = rt.register("alice")
    assert rt.connect("c1", "not-a-ticket") == 401
    assert rt.connect("c2", "") == 401
    assert rt.connect("c3", "x" * 5000) == 401
    stale = rt.ticket(token)
    rt.clock.advance(61_000)
    assert rt.connect("c4", stale) == 401
    assert all(rt.store.get_connection(c) is None for c in ("c1", "c2", "c3", "c4"))


def test_no_ticket_connects_a_signed_out_spectator(rt: RealtimeEnv) -> None:
    assert rt.connect("c1") == 200
    conn = rt.store.get_connection("c1")
    assert conn is not None and conn.user_id is None


def test_disconnect_forgets_the_connection_and_its_subscriptions(rt: RealtimeEnv) -> None:
    rid, _ = two_player_room(rt, started=False)
    rt.watch("c1", rid)
    rt.disconnect("c1")
    assert rt.store.get_connection("c1") is None
    assert rt.store.subscribers(rid) == []
    rt.disconnect("c1")  # a repeat is harmless


# --- messages ---------------------------------------------------------------------------------


def test_ping_is_answered_with_pong(rt: RealtimeEnv) -> None:
    rt.connect("c1")
    assert rt.send("c1", {"action": "ping"}) == [{"type": "pong"}]


def test_subscribe_answers_the_viewers_room_and_registers_the_subscription(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt)
    rt.connect("c1", rt.ticket(tokens[1]))
    [answer] = rt.send("c1", {"action": "subscribe", "room_id": rid})
    assert answer["type"] == "room" and answer["events"] == []
    assert answer["room"]["id"] == rid and answer["room"]["me"]["player_id"] is not None
    assert answer["room"]["me"]["dice"] is not None
    assert rt.store.subscribers(rid) == [("c1", rt.user_id(tokens[1]))]


def test_unsubscribe_stops_the_pushes(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, started=False)
    rt.watch("c1", rid)
    assert rt.send("c1", {"action": "unsubscribe", "room_id": rid}) == []
    rt.ok("PUT", f"/rooms/{rid}/ready", {"ready": False}, tokens[1])
    assert [m["type"] for m in rt.notifier.messages_for("c1")] == ["room"]  # the subscribe only


def test_unknown_or_malformed_messages_get_an_error_never_a_crash(rt: RealtimeEnv) -> None:
    rt.connect("c1")
    cases: list[tuple[Any, str]] = [
        ("not json", "invalid_json"),
        ("[1, 2]", "invalid_message"),
        ('"subscribe"', "invalid_message"),
        (None, "invalid_message"),
        ("", "invalid_message"),
        ({"action": "dance"}, "unknown_action"),
        ({"room_id": "r"}, "unknown_action"),
        ({"action": "subscribe"}, "invalid_message"),
        ({"action": "subscribe", "room_id": 42}, "invalid_message"),
        ({"action": "subscribe", "room_id": "x" * 65}, "invalid_message"),
        ({"action": "tick", "room_id": "has space"}, "invalid_message"),
        ({"action": "subscribe", "room_id": "nosuchroom"}, "unknown_room"),
        ({"action": "tick", "room_id": "nosuchroom"}, "unknown_room"),
        ("{" * 10_000, "message_too_large"),
    ]
    for message, code in cases:
        answer = rt.send("c1", message)
        assert len(answer) == 1, message
        assert answer[0]["type"] == "error", message
        assert answer[0]["error"]["code"] == code, (message, answer)
        assert answer[0]["error"]["message"]
    assert rt.send("c1", {"action": "ping"}) == [{"type": "pong"}]


def test_messages_from_an_unregistered_connection_get_an_error(rt: RealtimeEnv) -> None:
    rid, _ = two_player_room(rt, started=False)
    [answer] = rt.send("ghost", {"action": "subscribe", "room_id": rid})
    assert answer["error"]["code"] == "unknown_connection"
    assert rt.store.subscribers(rid) == []


def test_a_connection_watches_a_limited_number_of_rooms(rt: RealtimeEnv) -> None:
    from chalicelib.realtime import MAX_SUBSCRIPTIONS

    token = rt.register("host")
    rooms = []
    for i in range(MAX_SUBSCRIPTIONS + 1):
        if i and i % 5 == 0:
            token = rt.register(f"host{i}")
        rooms.append(rt.ok("POST", "/rooms", {}, token, 201)["id"])
    rt.connect("c1")
    for rid in rooms[:MAX_SUBSCRIPTIONS]:
        assert rt.send("c1", {"action": "subscribe", "room_id": rid})[0]["type"] == "room"
    [answer] = rt.send("c1", {"action": "subscribe", "room_id": rooms[-1]})
    assert answer["error"]["code"] == "too_many_subscriptions"
    assert rt.send("c1", {"action": "subscribe", "room_id": rooms[0]})[0]["type"] == "room"


# --- pushes -----------------------------------------------------------------------------------


def test_a_bid_pushes_each_watcher_its_own_view_and_nothing_hidden(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, humans=3)
    first, _ = token_to_act(rt, rid, tokens)
    v = rt.ok("GET", f"/rooms/{rid}", None, first)
    rt.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "bid", "quantity": 2, "face": 3, "turn": v["game"]["turn"]["number"]},
        first,
    )
    bidder, v = token_to_act(rt, rid, tokens)
    other = next(t for t in tokens if t not in (first, bidder))
    conns = {
        "bidder": (bidder, "cb"),
        "other": (other, "co"),
        "first": (first, "cf"),
        "spectator": (None, "cs"),
    }
    for token, cid in conns.values():
        rt.watch(cid, rid, token)
    state, _ = rt.room_state(rid)

    rt.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "bid", "quantity": 3, "face": 5, "turn": v["game"]["turn"]["number"]},
        bidder,
    )

    pushes = {name: rt.notifier.messages_for(cid)[1:] for name, (_, cid) in conns.items()}
    for name, messages in pushes.items():
        assert [m["type"] for m in messages] == ["room"], name
    views = {name: messages[0]["room"] for name, messages in pushes.items()}
    players = {name: views[name]["me"]["player_id"] for name in views}
    assert players["spectator"] is None
    assert len({players["bidder"], players["other"], players["first"]}) == 3
    for name, room in views.items():
        assert room["game"]["current_bid"]["quantity"] == 3
        assert room["game"]["current_bid"]["face"] == 5
        # Dice appear only as the viewer's own hand: never another player's, never a spectator's.
        dice = keys_anywhere(room, "dice")
        assert [p for p, _ in dice] == [".me.dice"], name
        if name == "spectator":
            assert room["me"]["dice"] is None
        else:
            assert room["me"]["dice"] and len(room["me"]["dice"]) == 5
        assert not keys_anywhere(room, "hand") and not keys_anywhere(room, "round_bids")
    own = {p["id"]: p["h"] for p in state["players"]}
    for name in ("bidder", "other", "first"):
        assert "".join(str(d) for d in views[name]["me"]["dice"]) == own[players[name]], name
    for name, messages in pushes.items():
        bids = [e for e in messages[0]["events"] if e["type"] == "bid_placed"]
        assert [(e["quantity"], e["face"]) for e in bids] == [(3, 5)], name
        text = json.dumps(messages[0])
        assert '"quantity": 2, "face": 3' not in text, name  # the round's earlier bid


def test_a_gone_connection_is_pruned_and_the_others_still_get_their_pushes(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, started=False)
    for cid in ("c1", "c2", "c3"):
        rt.watch(cid, rid)
    rt.notifier.gone.add("c2")
    rt.ok("PUT", f"/rooms/{rid}/ready", {"ready": False}, tokens[1])
    assert len(rt.notifier.messages_for("c1")) == 2
    assert len(rt.notifier.messages_for("c3")) == 2
    assert rt.store.get_connection("c2") is None
    assert [c for c, _ in rt.store.subscribers(rid)] == ["c1", "c3"]


class _Gone(Exception):
    """What botocore raises for a closed connection (GoneException, HTTP 410)."""

    def __init__(self) -> None:
        super().__init__("gone")
        self.response = {
            "Error": {"Code": "GoneException"},
            "ResponseMetadata": {"HTTPStatusCode": 410},
        }


class _ManagementApi:
    """A stand-in for the apigatewaymanagementapi client: one connection is gone, one broken."""

    def __init__(self) -> None:
        self.posted: dict[str, list[dict[str, Any]]] = {}

    def post_to_connection(self, ConnectionId: str, Data: bytes) -> None:
        if ConnectionId == "gone":
            raise _Gone()
        if ConnectionId == "broken":
            raise RuntimeError("network trouble")
        self.posted.setdefault(ConnectionId, []).append(json.loads(Data))


def test_the_real_notifier_raising_gone_prunes_and_a_broken_push_never_fails_the_action(
    rt: RealtimeEnv,
) -> None:
    from chalicelib import wiring

    api = _ManagementApi()
    notifier = ApiGatewayNotifier("abc123", "ws", "us-east-1", client=api)
    wiring.set_deps(
        wiring.Deps(
            store=rt.store,
            notifier=notifier,
            timers=rt.timers,
            clock=rt.clock,
            roller=rt.deps.roller,
        )
    )
    rid, tokens = two_player_room(rt, started=False)
    for cid in ("alive", "gone", "broken"):
        rt.connect(cid)
        rt.store.subscribe(cid, rid)
    answer = rt.ok("PUT", f"/rooms/{rid}/ready", {"ready": False}, tokens[1])
    assert answer["players"][1]["ready"] is False
    assert [m["room"]["version"] for m in api.posted["alive"]] == [answer["version"]]
    assert rt.store.get_connection("gone") is None
    assert rt.store.get_connection("broken") is not None  # only a 410 means gone


def test_chat_is_pushed_to_watchers(rt: RealtimeEnv) -> None:
    rid, tokens = two_player_room(rt, started=False)
    rt.watch("c1", rid)
    message = rt.ok("POST", f"/rooms/{rid}/chat", {"text": "hello"}, tokens[1], 201)
    assert rt.notifier.messages_for("c1")[-1] == {
        "type": "chat",
        "room_id": rid,
        "message": message,
    }


def test_a_failing_push_never_fails_the_action(rt: RealtimeEnv) -> None:
    from chalicelib import wiring

    class Broken:
        def send(self, connection_id: str, message: dict[str, Any]) -> bool:
            raise RuntimeError("down")

    wiring.set_deps(
        wiring.Deps(
            store=rt.store,
            notifier=Broken(),
            timers=rt.timers,
            clock=rt.clock,
            roller=rt.deps.roller,
        )
    )
    rid, tokens = two_player_room(rt, started=False)
    rt.connect("c1")
    rt.store.subscribe("c1", rid)
    rt.ok("PUT", f"/rooms/{rid}/ready", {"ready": False}, tokens[1])
    rt.ok("POST", f"/rooms/{rid}/chat", {"text": "still here"}, tokens[1], 201)
    assert rt.store.get_connection("c1") is not None
