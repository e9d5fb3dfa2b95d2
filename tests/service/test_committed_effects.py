"""Every effect of a room use case is on its ``Committed.effects``, and the executor runs
exactly those: a use case adds its own (refunds, invitations, a released slot) through
``change_room(..., then=...)`` or the ``Committed`` of a creation, never by running them aside."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from chalicelib import effects, wiring
from chalicelib.service import Committed, Service, invitations, lobby
from chalicelib.service.core import Then
from tests.service.conftest import Table


class Recording(Service):
    """A service that writes down every committed value and every batch the executor ran."""

    def __init__(self, deps: wiring.Deps, table: Table) -> None:
        super().__init__(deps, table.settings)
        self.committed: list[Committed] = []
        self.ran: list[tuple[effects.Effect, ...]] = []

    def finish(self, done: Committed, then: Then | None = None) -> Committed:
        done = super().finish(done, then)
        self.committed.append(done)
        return done

    def _execute(self, planned: Iterable[effects.Effect]) -> None:
        batch = tuple(planned)
        self.ran.append(batch)
        super()._execute(batch)


def kinds(batch: Sequence[effects.Effect]) -> list[type]:
    return [type(e) for e in batch]


def test_each_room_use_case_runs_exactly_the_effects_on_its_committed_value(table: Table) -> None:
    svc = Recording(table.deps, table)
    a, b, c = table.user("alice"), table.user("bobby"), table.user("carol")

    rid = lobby.create_room(svc, a, {"joining": "passcode", "passcode": "1234"})["id"]
    created = svc.committed[-1]
    assert created.room.id == rid and created.events[0]["type"] == "room_created"
    assert kinds(created.effects) == [
        effects.Observe,
        effects.Publish,
        effects.WakeUp,
        effects.Seat,  # the creator sits in the room ("my games")
    ]

    invitations.invite(svc, a, rid, "carol")
    assert kinds(svc.committed[-1].effects)[-1] is effects.AddInvitation

    lobby.join(svc, b, rid, "1234")
    joined = svc.committed[-1].effects
    assert [e for e in joined if isinstance(e, effects.Refund)] == [
        effects.Refund(f"passcode-room:{rid}", table.settings.passcode_room_window_seconds,
                       table.clock.now)
    ]  # fmt: skip
    assert joined[-1] == effects.RemoveInvitation(b.user_id, rid)

    lobby.join(svc, c, rid, None)
    lobby.leave(svc, c, rid)
    assert svc.committed[-1].effects[-1] == effects.ReleaseRoom(c.user_id, rid)

    assert svc.ran == [done.effects for done in svc.committed]


def test_a_recreation_commits_both_rooms_effects_in_one_value(table: Table) -> None:
    svc = Recording(table.deps, table)
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b)
    table.play_out(rid, a, b)
    svc.committed.clear()
    svc.ran.clear()
    new = lobby.recreate(svc, b, rid)["id"]
    done = svc.committed[-1]
    published = [e.room.id for e in done.effects if isinstance(e, effects.Publish)]
    assert published == [rid, new]
    assert done.events[0] == {"type": "room_recreated", "room_id": new, "at": table.clock.now}
    assert svc.ran[-1] == done.effects
