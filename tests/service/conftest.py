"""The service on its fakes: SQLite ``:memory:`` as the store, recording notifier and timers, a
settable clock and seeded dice. No moto, no HTTP: the service's own rules, called directly."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from chalicelib import wiring
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Room
from chalicelib.service import Caller, Service, lobby, play
from chalicelib.settings import Settings


@dataclass
class Table:
    """A service over fakes, with helpers to make users and rooms."""

    store: SqliteStore
    notifier: FakeNotifier
    timers: FakeTimers
    clock: FakeClock
    deps: wiring.Deps
    settings: Settings
    _ids: Iterator[int] = field(default_factory=itertools.count)

    @property
    def service(self) -> Service:
        return Service(self.deps, self.settings)

    def user(self, name: str, *, guest: bool = False) -> Caller:
        """A stored user (registered unless ``guest``) and their caller."""
        uid = f"{'g' if guest else 'u'}{next(self._ids)}"
        record = self.store.create_user(
            uid, None if guest else name, None, guest, name, now_ms=self.clock.now
        )
        return Caller(record.id, record.name, record.guest)

    def room(self, room_id: str) -> tuple[Room, int]:
        """The room as stored, and its version."""
        stored = self.store.get_room(room_id)
        assert stored is not None
        return Room.from_dict(stored.state), stored.version

    def playing(self, host: Caller, *others: Caller, **settings: Any) -> str:
        """A started room of ``host`` and ``others`` (one die each unless told)."""
        svc = self.service
        rid: str = lobby.create_room(svc, host, {"starting_dice": 1, **settings})["id"]
        for other in others:
            lobby.join(svc, other, rid, settings.get("passcode"))
            lobby.set_ready(svc, other, rid, True)
        lobby.start(svc, host, rid)
        return rid

    def play_out(self, rid: str, *callers: Caller) -> dict[str, Any]:
        """Play the room to its end: the opener bids one 2, the next calls Liar!; time passes
        through breaks and the final reveal. The finished view."""
        by_user = {c.user_id: c for c in callers}
        svc = self.service
        for _ in range(200):
            view: dict[str, Any] = play.get_room(svc, rid, None)
            if view["status"] != "playing":
                return view
            game = view["game"]
            if game["phase"] != "bidding":
                self.clock.advance(120_000)
                continue
            seat = next(p for p in view["players"] if p["id"] == game["turn"]["player_id"])
            turn = game["turn"]["number"]
            action: dict[str, Any] = {"type": "liar", "turn": turn}
            if game["current_bid"] is None:
                action = {"type": "bid", "quantity": 1, "face": 2, "turn": turn}
            play.act(svc, by_user[seat["user_id"]], rid, action)
        raise AssertionError("the game did not end")


@pytest.fixture
def table() -> Iterator[Table]:
    """A fresh service on fakes (its settings are the defaults unless a test replaces them)."""
    clock, notifier, timers = FakeClock(), FakeNotifier(), FakeTimers()
    store = SqliteStore(":memory:", clock=clock)
    deps = wiring.Deps(store, notifier, timers, clock, roller=SeededRoller(11))
    yield Table(store, notifier, timers, clock, deps, Settings())
    store.close()
