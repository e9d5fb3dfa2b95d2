"""Secrecy over HTTP: no answer or push to one viewer carries another player's current dice or
the current round's earlier bids, across many random games."""

from __future__ import annotations

import random
from typing import Any

from chalicelib.engine.model import Phase, Room
from chalicelib.engine.views import die_out
from tests.api.conftest import Env
from tests.api.helpers import play_to_end

ALLOWED_DICE_KEYS = {"dice_count", "total_dice", "starting_dice", "dice_progress"}


def _walk(node: Any, path: tuple[str, ...] = ()) -> Any:
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, (*path, str(k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, (*path, str(i)))


def check_view(view: dict[str, Any], room: Room, viewer_user_id: str | None) -> int:
    """Assert the view holds only the viewer's own dice and only the current bid; count checks."""
    me = room.player_of_user(viewer_user_id)
    own = [die_out(d) for d in me.hand] if me is not None and me.hand else None
    assert view["me"]["dice"] == own
    game = room.game
    bidding = game is not None and game.phase == Phase.BIDDING
    current = game.current_bid.to_dict() if game is not None and game.current_bid else None
    checks = 0
    for path, node in _walk(view):
        inside_reveal = "last_reveal" in path
        if path and not inside_reveal:
            key = path[-1]
            if ("dice" in key or "hand" in key) and key not in ALLOWED_DICE_KEYS:
                assert path == ("me", "dice"), path
            assert key not in ("bids", "round_bids", "history"), path
        if isinstance(node, dict) and "quantity" in node and not inside_reveal and bidding:
            # the only bid of the running round a viewer may see is the current one
            assert {k: node[k] for k in ("player_id", "quantity", "face") if k in node} == current
            checks += 1
    if game is not None and game.last_reveal is not None and bidding:
        # the reveal is of a completed round, never the one being bid
        assert view["game"]["last_reveal"]["round"] < game.round
    return checks


def test_no_view_or_push_leaks_hidden_dice_or_bid_history(api_env: Env) -> None:
    env = api_env
    rng = random.Random(11)
    seen = {"views": 0, "pushes": 0}
    for g in range(5):
        humans = rng.randint(2, 3)
        tokens, users = [], []
        for i in range(humans):
            t, u = env.register(f"s{g}x{i}")
            tokens.append(t)
            users.append(u["id"])
        room = env.ok(
            "POST",
            "/rooms",
            {
                "settings": {
                    "starting_dice": rng.randint(1, 3),
                    "penalty": rng.choice(["discard", "give"]),
                }
            },
            tokens[0],
            201,
        )
        rid = room["id"]
        for t in tokens[1:]:
            env.ok("POST", f"/rooms/{rid}/join", {}, t)
            env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, t)
        for _ in range(rng.randint(0, 2)):
            env.ok(
                "POST",
                f"/rooms/{rid}/bots",
                {"level": rng.choice(["easy", "strong"])},
                tokens[0],
                201,
            )
        # every human and one spectator watch the room over a WebSocket
        watchers = [*users, None]
        for n, uid in enumerate(watchers):
            env.store.put_connection(f"c{g}-{n}", uid, env.clock.now_ms())
            env.store.subscribe(f"c{g}-{n}", rid)
        env.ok("POST", f"/rooms/{rid}/start", None, tokens[0])
        by_token = dict(zip(tokens, users, strict=True))

        def on_view(token: str, view: dict[str, Any]) -> None:
            stored = env.store.get_room(rid)  # noqa: B023 - the current game's room
            assert stored is not None and stored.version == view["version"]
            check_view(view, Room.from_dict(stored.state), by_token[token])  # noqa: B023
            seen["views"] += 1

        sent_before = len(env.notifier.sent)
        heard: dict[str, list[tuple[Any, ...]]] = {f"c{g}-{n}": [] for n in range(len(watchers))}
        play_to_end(env, rid, tokens, rng, on_view=on_view)
        spectator = env.ok("GET", f"/rooms/{rid}", None)
        assert spectator["me"]["dice"] is None
        # pushes: each message is one viewer's view at the version it announces
        for conn, message in env.notifier.sent[sent_before:]:
            assert message["type"] == "room"
            n = int(conn.split("-")[1])
            view = message["room"]
            assert view["me"]["player_id"] == (
                None if watchers[n] is None else view["me"]["player_id"]
            )
            if watchers[n] is None:
                assert view["me"]["dice"] is None
            # the view part of a push lists no bid of the running round but the current one
            assert all(
                key not in ("bids", "round_bids", "history")
                for path, _ in _walk({**view, "game": {**(view["game"] or {}), "last_reveal": 0}})
                for key in path[-1:]
            )
            # each bid is announced with what it said, once, in the push that made it
            for e in message["events"]:
                if e["type"] == "bid_placed":
                    heard[conn].append((e["round"], e["player_id"], e["quantity"], e["face"]))
            seen["pushes"] += 1
        # every watcher heard the same bids in the same order (none lost, none repeated)
        first = next(iter(heard.values()))
        assert first and all(bids == first for bids in heard.values())
        assert len(set(first)) == len(first)
    assert seen["views"] > 50 and seen["pushes"] > 50


def test_a_players_push_holds_their_own_dice_only(api_env: Env) -> None:
    env = api_env
    a, ua = env.register("pusha")
    b, ub = env.register("pushb")
    rid = env.ok("POST", "/rooms", {}, a, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, b)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, b)
    for cid, uid in (("ca", ua["id"]), ("cb", ub["id"])):
        env.store.put_connection(cid, uid, 0)
        env.store.subscribe(cid, rid)
    env.ok("POST", f"/rooms/{rid}/start", None, a)
    room = Room.from_dict(env.store.get_room(rid).state)  # type: ignore[union-attr]
    for cid, uid in (("ca", ua["id"]), ("cb", ub["id"])):
        last = env.notifier.messages_for(cid)[-1]
        check_view(last["room"], room, uid)
        assert last["room"]["me"]["dice"] == [die_out(d) for d in room.player_of_user(uid).hand]  # type: ignore[union-attr]


def test_the_checker_catches_a_leak(api_env: Env) -> None:
    import pytest

    env = api_env
    a, ua = env.register("leaka")
    b, _ = env.register("leakb")
    rid = env.ok("POST", "/rooms", {}, a, 201)["id"]
    env.ok("POST", f"/rooms/{rid}/join", {}, b)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, b)
    view = env.ok("POST", f"/rooms/{rid}/start", None, a)
    room = Room.from_dict(env.store.get_room(rid).state)  # type: ignore[union-attr]
    check_view(view, room, ua["id"])
    leaked = {**view, "players": [{**p, "dice": [1, 2]} for p in view["players"]]}
    with pytest.raises(AssertionError):
        check_view(leaked, room, ua["id"])
    history = {**view, "game": {**view["game"], "round_bids": []}}
    with pytest.raises(AssertionError):
        check_view(history, room, ua["id"])
    other_bid = {
        **view,
        "game": {**view["game"], "current_bid": {"player_id": "p9", "quantity": 1, "face": 2}},
    }
    with pytest.raises(AssertionError):
        check_view(other_bid, room, ua["id"])
