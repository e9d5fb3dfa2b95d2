"""Every committed change of a room is pushed, and its version is one more than the last.

This is what lets a frontend tell a missed push from a late one (docs/REALTIME.md, "Order
and gaps"; the room view's ``version`` in the API documents): a watcher that holds version n
and receives n + 2 knows one is missing. A change that wrote the room without pushing it (a
new use case, a repair) would break that silently.
"""

from __future__ import annotations

from typing import Any

from chalicelib.service import Caller, lobby, play
from tests.service.conftest import Table


def _watch(table: Table, connection_id: str, user_id: str | None, room_id: str) -> None:
    table.store.put_connection(connection_id, user_id, table.clock.now)
    assert table.store.subscribe(connection_id, room_id)


def _room_versions(table: Table, connection_id: str) -> list[int]:
    return [
        m["room"]["version"]
        for m in table.notifier.messages_for(connection_id)
        if m["type"] == "room"
    ]


def _play_to_the_end(table: Table, rid: str, by_user: dict[str, Caller]) -> None:
    """Bid one 2 or call Liar! in turn; let every turn of ``idle`` users time out."""
    svc = table.service
    for _ in range(300):
        view: dict[str, Any] = play.get_room(svc, rid, None)
        if view["status"] != "playing":
            return
        game = view["game"]
        if game["phase"] != "bidding":
            table.clock.advance(120_000)
            continue
        seat = next(p for p in view["players"] if p["id"] == game["turn"]["player_id"])
        caller = by_user.get(seat["user_id"])
        if caller is None:  # this player is away: the turn times out
            table.clock.advance(61_000)
            continue
        turn = game["turn"]["number"]
        action: dict[str, Any] = {"type": "liar", "turn": turn}
        if game["current_bid"] is None:
            action = {"type": "bid", "quantity": 1, "face": 2, "turn": turn}
        play.act(svc, caller, rid, action)
    raise AssertionError("the game did not end")


def test_every_change_from_lobby_to_recreate_reaches_a_watcher_one_version_at_a_time(
    table: Table,
) -> None:
    svc = table.service
    ann, bob, cy = table.user("Ann"), table.user("Bob"), table.user("Cy")
    rid = lobby.create_room(svc, ann, {"starting_dice": 2, "turn_seconds": 15})["id"]
    _watch(table, "spect", None, rid)
    _watch(table, "ann", ann.user_id, rid)

    lobby.add_bot(svc, ann, rid, "easy")
    lobby.add_bot(svc, ann, rid, "strong")
    bot_2 = next(p["id"] for p in play.get_room(svc, rid, None)["players"] if p["name"] == "Bot 2")
    lobby.remove_bot(svc, ann, rid, bot_2)
    lobby.update_settings(svc, ann, rid, {"break_seconds": 30})
    lobby.join(svc, bob, rid, None)
    lobby.join(svc, cy, rid, None)
    lobby.leave(svc, cy, rid)
    lobby.set_ready(svc, bob, rid, True)
    lobby.start(svc, ann, rid)
    # Ann plays; Bob is away, so his turns time out (applied by views and ticks).
    _play_to_the_end(table, rid, {ann.user_id: ann})
    new_room = lobby.recreate(svc, ann, rid)

    stored = table.room(rid)[1]
    first = 1  # the watchers subscribed to the room as created
    for connection_id in ("spect", "ann"):
        versions = _room_versions(table, connection_id)
        assert versions == list(range(first + 1, stored + 1)), connection_id
    heard = {e["type"] for m in table.notifier.messages_for("spect") for e in m.get("events", [])}
    # the run went through what a table does: joins, timeouts, reveals, the end, recreate
    assert {"player_joined", "turn_timed_out", "challenge_resolved", "game_finished"} <= heard
    assert "room_recreated" in heard
    assert [p["name"] for p in new_room["players"] if p["kind"] == "bot"] == ["Bot 1"]
