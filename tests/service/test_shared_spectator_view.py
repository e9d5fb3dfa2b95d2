"""A push renders the spectators' view once for every watcher who sees just that (issue 32).

A signed-in watcher with no seat, no request to join and no invitation sees exactly what a
signed-out spectator sees; the fan-out builds that message once for all of them. Anyone the
view says something about (a seat, a pending or denied request, an invitation) keeps a
view of their own.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib import effects, wire
from chalicelib.engine.views import room_view, room_views, sees_as_spectator
from tests.service.conftest import Table


def _watch(table: Table, rid: str, watchers: dict[str, str | None]) -> None:
    for conn, user in watchers.items():
        table.store.put_connection(conn, user, table.clock.now)
        assert table.store.subscribe(conn, rid)


def _count_views(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The viewers a push renders the room for."""
    built: list[str | None] = []
    real = wire.views

    def counted(room: Any, version: int, now: int | None = None) -> Any:
        of = real(room, version, now)

        def view_of(user_id: str | None) -> Any:
            built.append(user_id)
            return of(user_id)

        return view_of

    monkeypatch.setattr(wire, "views", counted)
    return built


def test_seatless_watchers_share_the_spectators_view_which_shows_no_hand(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob, cat, dan = (table.user(n) for n in ("annie", "bobby", "cathy", "danny"))
    rid = table.playing(ann, bob)
    room, version = table.room(rid)
    _watch(table, rid, {"ca": ann.user_id, "cb": bob.user_id, "cc": cat.user_id})
    _watch(table, rid, {"cd": dan.user_id, "cs": None})
    built = _count_views(monkeypatch)

    assert effects.publish(room, version, [], deps=table.deps) == 5

    sent = {conn: message for conn, message in table.notifier.sent}
    assert sent["cc"] == sent["cd"] == sent["cs"]  # one view for the three
    assert sorted(built, key=str) == sorted([ann.user_id, bob.user_id, None], key=str)
    assert (
        sent["cs"]["room"]["me"]["dice"] is None and sent["cs"]["room"]["me"]["player_id"] is None
    )
    for player in room.players:  # no seat's hand in what the watchers get
        hand = room_view(room, user_id=player.user_id)["me"]["dice"]
        assert hand and json.dumps(hand) not in json.dumps(sent["cs"]["room"]["me"])
    # each player still sees their own dice
    assert sent["ca"]["room"]["me"]["dice"] and sent["cb"]["room"]["me"]["dice"]


def test_a_watcher_the_view_speaks_of_keeps_a_view_of_their_own(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob, cat, dan, eve = (
        table.user(n) for n in ("annie", "bobby", "cathy", "danny", "evelyn")
    )
    rid = table.playing(ann, bob)
    room, version = table.room(rid)
    room.pending.append({"user_id": cat.user_id, "name": cat.name})
    room.denied.append(dan.user_id)
    room.invited.append(eve.user_id)
    _watch(table, rid, {"cc": cat.user_id, "cd": dan.user_id, "ce": eve.user_id, "cs": None})
    built = _count_views(monkeypatch)

    effects.publish(room, version, [], deps=table.deps)

    sent = {conn: message["room"]["me"] for conn, message in table.notifier.sent}
    assert sent["cc"]["request"] == "pending"
    assert sent["cd"]["request"] == "denied"
    assert sent["ce"]["invited"] is True
    assert sent["cs"] == room_view(room)["me"]
    assert len(built) == 4
    for user in (cat, dan, eve):
        assert not sees_as_spectator(room, user.user_id)
        assert room_view(room, user_id=user.user_id) != room_view(room)


def test_sees_as_spectator_agrees_with_the_view_itself(table: Table) -> None:
    ann, bob, cat = (table.user(n) for n in ("annie", "bobby", "cathy"))
    room, _ = table.room(table.playing(ann, bob))
    for user_id in (None, ann.user_id, bob.user_id, cat.user_id, "nobody"):
        same = room_view(room, user_id=user_id) == room_view(room)
        assert sees_as_spectator(room, user_id) == same


def test_views_sharing_their_parts_are_byte_for_byte_each_viewers_own(table: Table) -> None:
    ann, bob, cat = (table.user(n) for n in ("annie", "bobby", "cathy"))
    rid = table.playing(ann, bob, passcode="1234")
    room, _ = table.room(rid)
    room.pending.append({"user_id": cat.user_id, "name": cat.name})
    of = room_views(room)
    for user_id in (None, ann.user_id, bob.user_id, cat.user_id, "nobody"):
        shared, own = of(user_id), room_view(room, user_id=user_id)
        assert json.dumps(shared) == json.dumps(own)  # same keys, same order, same values
    host = of(ann.user_id)
    assert host["settings"].get("passcode") == "1234"  # the host's, and only the host's
    assert "passcode" not in of(bob.user_id)["settings"]
    assert "passcode" not in of(None)["settings"]
    # each view's own parts are its own
    first, second = of(None), of(None)
    first["me"]["dice"] = [6]
    first["settings"]["x"] = 1
    assert second["me"]["dice"] is None and "x" not in second["settings"]
