"""Effects as data: what a committed change plans, and the one executor that runs it."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import effects
from chalicelib.engine.model import Status
from chalicelib.ports import Unavailable
from chalicelib.service import invitations, lobby
from tests.service.conftest import Table


def test_a_game_that_ends_releases_its_hosts_slot_before_the_pushes_and_the_wake_up(
    table: Table,
) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b)
    table.play_out(rid, a, b)
    room, version = table.room(rid)
    planned = effects.plan(room, version, [], before=Status.PLAYING)
    assert [type(e) for e in planned] == [
        effects.ReleaseRoom,
        effects.Observe,
        effects.Publish,
        effects.WakeUp,
    ]
    assert planned[0] == effects.ReleaseRoom(a.user_id, rid)
    assert [type(e) for e in effects.plan(room, version, [], before=Status.FINISHED)] == [
        effects.Observe,
        effects.Publish,
        effects.WakeUp,
    ]


def test_a_room_leaving_waiting_drops_the_invitations_read_and_made(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b)
    room, version = table.room(rid)
    room.invited = ["u9"]
    planned = effects.plan(room, version, [], before=Status.WAITING, invited=["u7", "u9"])
    dropped = [e for e in planned if isinstance(e, effects.RemoveInvitation)]
    assert dropped == [effects.RemoveInvitation("u7", rid), effects.RemoveInvitation("u9", rid)]
    assert not [e for e in effects.plan(room, version, []) if isinstance(e, effects.ReleaseRoom)]


def test_starting_play_removes_the_rooms_invitations_after_its_write(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    c = table.user("carol")
    svc = table.service
    rid = lobby.create_room(svc, a, {"starting_dice": 1, "joining": "approval"})["id"]
    invitations.invite(svc, a, rid, "bobby")
    invitations.invite(svc, a, rid, "carol")
    lobby.join(svc, b, rid, None)
    assert table.store.list_invitations(b.user_id) == []  # joining used it
    assert len(table.store.list_invitations(c.user_id)) == 1
    lobby.set_ready(svc, b, rid, True)
    lobby.start(svc, a, rid)
    assert table.store.list_invitations(c.user_id) == []


def test_a_failing_push_neither_raises_nor_stops_the_wake_up(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b, turn_seconds=15)
    room, version = table.room(rid)
    table.store.put_connection("c1", a.user_id, table.clock.now)
    table.store.subscribe("c1", rid)

    def broken(connection_id: str, message: dict[str, Any]) -> bool:
        raise RuntimeError("the push fails")

    table.notifier.send = broken  # type: ignore[method-assign]
    table.timers.scheduled.clear()
    effects.run(
        table.deps, [effects.Publish(room, version + 1, []), effects.WakeUp(room, version + 1)]
    )
    assert (rid, version + 1) in table.timers.scheduled


def test_failing_bookkeeping_is_logged_and_the_effects_after_it_still_run(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chalicelib.retry.sleep", lambda _s: None)
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b)
    room, version = table.room(rid)
    calls: list[str] = []

    def unavailable(*_args: Any) -> None:
        calls.append("release")
        raise Unavailable("throttled")

    table.store.release_room = unavailable  # type: ignore[method-assign]
    table.timers.scheduled.clear()
    effects.run(table.deps, [effects.ReleaseRoom(a.user_id, rid), effects.WakeUp(room, version)])
    assert calls == ["release"] * 3  # retried, then given up on
    assert (rid, version) in table.timers.scheduled


def test_a_required_invitation_that_keeps_failing_raises(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chalicelib.retry.sleep", lambda _s: None)

    def unavailable(*_args: Any, **_kwargs: Any) -> None:
        raise Unavailable("throttled")

    table.store.add_invitation = unavailable  # type: ignore[method-assign]
    with pytest.raises(Unavailable):
        effects.run(table.deps, [effects.AddInvitation("u1", "r1", "Alice", table.clock.now)])


def test_each_watcher_gets_its_own_view_and_a_gone_connection_is_forgotten(
    table: Table,
) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b)
    room, version = table.room(rid)
    for conn, user in (("ca", a.user_id), ("cb", b.user_id), ("gone", None)):
        table.store.put_connection(conn, user, table.clock.now)
        table.store.subscribe(conn, rid)
    table.notifier.gone.add("gone")
    delivered = effects.publish(room, version, [], deps=table.deps)
    assert delivered == 2
    seats = {p.user_id: p.id for p in room.players}
    seen = {c: m["room"]["me"]["player_id"] for c, m in table.notifier.sent if m["type"] == "room"}
    assert seen == {"ca": seats[a.user_id], "cb": seats[b.user_id]}
    hands = [m["room"]["me"]["dice"] for _, m in table.notifier.sent]
    assert all(hands)  # each seat sees its own die, and only in its own push
    assert table.store.get_connection("gone") is None


def test_the_next_wake_up_is_made_before_the_previous_one_is_dropped(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b, turn_seconds=15)
    room, version = table.room(rid)
    order: list[str] = []
    real_schedule, real_cancel = table.timers.schedule, table.timers.cancel

    def schedule(room_id: str, v: int, at_ms: int) -> None:
        order.append(f"schedule v{v}")
        real_schedule(room_id, v, at_ms)

    def cancel(room_id: str, v: int) -> None:
        order.append(f"cancel v{v}")
        real_cancel(room_id, v)

    table.timers.schedule = schedule  # type: ignore[method-assign]
    table.timers.cancel = cancel  # type: ignore[method-assign]
    effects.schedule_next(room, version + 1, deps=table.deps)
    assert order == [f"schedule v{version + 1}", f"cancel v{version}"]
