"""A change does no I/O: every read and rate-limit count a use case needs happens before its
change runs (``gather``), and the write and its effects after. Proved for every room use case
by a store that refuses to be called while a change runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib import wiring
from chalicelib.engine.model import Room
from chalicelib.service import (
    Caller,
    Committed,
    RoomChange,
    Service,
    accounts,
    invitations,
    lobby,
    play,
)
from chalicelib.service.core import Then
from tests.service.conftest import Table


class GuardedStore:
    """The store, refusing every call while ``inside`` is set; records what a change asked."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.inside = False
        self.refused: list[str] = []

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._store, name)
        if not callable(target):
            return target

        def guarded(*args: Any, **kwargs: Any) -> Any:
            if self.inside:
                self.refused.append(name)
            return target(*args, **kwargs)

        return guarded


class WatchedService(Service):
    """A service whose changes run with the store's guard up."""

    guard: GuardedStore

    def change_room(
        self,
        room_id: str,
        change: RoomChange | None = None,
        *,
        caller: Caller | None = None,
        gather: Callable[[Room], None] | None = None,
        admit: Callable[[], None] | None = None,
        then: Then | None = None,
    ) -> Committed:
        watched = None
        if change is not None:
            inner = change

            def watched(room: Room) -> list[Any]:
                self.guard.inside = True
                try:
                    return inner(room)
                finally:
                    self.guard.inside = False

        return super().change_room(
            room_id, watched, caller=caller, gather=gather, admit=admit, then=then
        )


def test_no_room_use_case_touches_the_store_inside_its_change(table: Table) -> None:
    guard = GuardedStore(table.store)
    deps = wiring.Deps(guard, table.notifier, table.timers, table.clock, table.deps.roller)  # type: ignore[arg-type]
    svc = WatchedService(deps, table.settings)
    svc.guard = guard
    a, b, c = table.user("alice"), table.user("bobby"), table.user("carol")
    rid = lobby.create_room(
        svc, a, {"starting_dice": 1, "joining": "passcode", "passcode": "1234"}
    )["id"]
    lobby.update_settings(svc, a, rid, {"turn_seconds": 60})
    invitations.invite(svc, a, rid, "carol")
    lobby.join(svc, b, rid, "1234")  # counted before the change, refunded after
    lobby.join(svc, c, rid, None)  # invited: no passcode
    lobby.leave(svc, c, rid)
    lobby.set_ready(svc, b, rid, True)
    lobby.add_bot(svc, a, rid, "easy")
    bot = next(p["id"] for p in play.get_room(svc, rid, a)["players"] if p["kind"] == "bot")
    lobby.remove_bot(svc, a, rid, bot)
    accounts.set_preferences(svc, b, "manual", rid)
    lobby.start(svc, a, rid)  # the continue modes are read before the change
    view = play.get_room(svc, rid, a)
    turn = view["game"]["turn"]
    mover = a if turn["player_id"] == view["me"]["player_id"] else b
    play.act(svc, mover, rid, {"type": "bid", "quantity": 1, "face": 2, "turn": turn["number"]})
    approval = lobby.create_room(svc, b, {"joining": "approval"})["id"]
    lobby.join(svc, c, approval, None)
    lobby.approve(svc, b, approval, c.user_id)
    assert guard.refused == []


def test_the_guard_sees_a_store_call_made_inside_a_change(table: Table) -> None:
    guard = GuardedStore(table.store)
    deps = wiring.Deps(guard, table.notifier, table.timers, table.clock, table.deps.roller)  # type: ignore[arg-type]
    svc = WatchedService(deps, table.settings)
    svc.guard = guard
    rid = lobby.create_room(svc, table.user("alice"), {})["id"]

    def reads(room: Room) -> list[Any]:
        guard.get_user("u0")
        return []

    svc.change_room(rid, reads)
    assert guard.refused == ["get_user"]
