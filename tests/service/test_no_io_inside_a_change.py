"""A change does no I/O: every read and rate-limit count a use case needs happens before its
change runs (``gather``), and the write and its effects after. Proved for every room use case
by a store that refuses to be called while a change runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib import wiring
from chalicelib.engine.model import Room
from chalicelib.service import Caller, Committed, RoomChange, Service
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

        return super().change_room(room_id, watched, caller=caller, gather=gather, admit=admit)


def test_no_room_use_case_touches_the_store_inside_its_change(table: Table) -> None:
    guard = GuardedStore(table.store)
    deps = wiring.Deps(guard, table.notifier, table.timers, table.clock, table.deps.roller)  # type: ignore[arg-type]
    svc = WatchedService(deps, table.settings)
    svc.guard = guard
    a, b, c = table.user("alice"), table.user("bobby"), table.user("carol")
    rid = svc.create_room(a, {"starting_dice": 1, "joining": "passcode", "passcode": "1234"})["id"]
    svc.update_settings(a, rid, {"turn_seconds": 60})
    svc.invite(a, rid, "carol")
    svc.join(b, rid, "1234")  # counted before the change, refunded after
    svc.join(c, rid, None)  # invited: no passcode
    svc.leave(c, rid)
    svc.set_ready(b, rid, True)
    svc.add_bot(a, rid, "easy")
    bot = next(p["id"] for p in svc.get_room(rid, a)["players"] if p["kind"] == "bot")
    svc.remove_bot(a, rid, bot)
    svc.set_preferences(b, "manual", rid)
    svc.start(a, rid)  # the continue modes are read before the change
    view = svc.get_room(rid, a)
    turn = view["game"]["turn"]
    mover = a if turn["player_id"] == view["me"]["player_id"] else b
    svc.act(mover, rid, {"type": "bid", "quantity": 1, "face": 2, "turn": turn["number"]})
    approval = svc.create_room(b, {"joining": "approval"})["id"]
    svc.join(c, approval, None)
    svc.approve(b, approval, c.user_id)
    assert guard.refused == []


def test_the_guard_sees_a_store_call_made_inside_a_change(table: Table) -> None:
    guard = GuardedStore(table.store)
    deps = wiring.Deps(guard, table.notifier, table.timers, table.clock, table.deps.roller)  # type: ignore[arg-type]
    svc = WatchedService(deps, table.settings)
    svc.guard = guard
    rid = svc.create_room(table.user("alice"), {})["id"]

    def reads(room: Room) -> list[Any]:
        guard.get_user("u0")
        return []

    svc.change_room(rid, reads)
    assert guard.refused == ["get_user"]
