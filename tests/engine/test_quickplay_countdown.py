"""A quick-play table's countdown: a seat left before ``starts_at`` goes to a bot (pure engine)."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.errors import Conflict, Forbidden
from chalicelib.engine.model import Player, Room, Settings
from chalicelib.engine.room import UserRef, leave_countdown
from chalicelib.schemas import AnyEvent

T0 = 1_000_000
STARTS = T0 + 5_000


def _table(humans: int = 2, bots: int = 2, seed: int = 3) -> Room:
    room = Room(
        id="qp1",
        host_id="p1",
        created_by_guest=False,
        created_at=T0,
        settings=Settings.parse({"rules": "classic"}),
        quickplay=True,
        starts_at=STARTS,
        rated=humans >= 2,
    )
    for i in range(1, humans + 1):
        room.players.append(Player(f"p{i}", f"name{i}", "human", user_id=f"u{i}", ready=True))
    for j in range(1, bots + 1):
        room.players.append(Player(f"p{humans + j}", f"Bot {j}", "bot", level="easy", ready=True))
    room.next_player_no = humans + bots + 1
    game.start_game(room, SeededRoller(seed), STARTS, (0, 0))
    return room


def test_a_seat_left_in_the_countdown_becomes_a_bot_of_the_tables_level() -> None:
    room = _table()
    events = leave_countdown(room, UserRef("u1", "name1"), SeededRoller(1), T0 + 1_000)
    seat = room.player("p1")
    assert seat is not None and seat.is_bot and seat.user_id is None
    assert (seat.level, seat.name) == ("easy", "Bot 3")
    assert room.player_of_user("u1") is None
    assert events[0] == {
        "type": "player_replaced",
        "player_id": "p1",
        "level": "easy",
        "at": T0 + 1_000,
    }
    for i, e in enumerate(events):
        wire = {"id": f"1.{i}", **e, "at": "2026-01-01T00:00:00.000Z"}  # as a push shows it
        TypeAdapter(AnyEvent).validate_python(wire)
    assert room.rated is False  # one human left: nothing to rate


def test_a_replaced_seat_whose_turn_it_is_plays_at_once() -> None:
    for seed in range(40):
        room = _table(seed=seed)
        assert room.game is not None
        if room.game.turn_player not in ("p1", "p2"):
            continue
        holder = room.player(room.game.turn_player or "")
        assert holder is not None and holder.user_id is not None
        turn = room.game.turn
        events = leave_countdown(room, UserRef(holder.user_id, holder.name), SeededRoller(2), T0)
        assert room.game.turn > turn  # the new bot moved
        assert any(e.get("by") == "bot" and e.get("player_id") == holder.id for e in events)
        return
    pytest.fail("no seed made a human open")


def test_after_the_countdown_leaving_is_refused_and_outsiders_are_not_members() -> None:
    room = _table()
    with pytest.raises(Conflict) as late:
        leave_countdown(room, UserRef("u1", "name1"), SeededRoller(1), STARTS)
    assert late.value.code == "countdown_over"
    with pytest.raises(Forbidden):
        leave_countdown(room, UserRef("u9", "stranger"), SeededRoller(1), T0)


def test_the_countdown_survives_storage_and_shows_in_the_view() -> None:
    from chalicelib.engine.views import room_view

    room = Room.from_dict(_table().to_dict())
    assert room.quickplay and room.starts_at == STARTS
    view = room_view(room, user_id="u1")
    assert view["quickplay"] is True and view["game"]["starts_at"] is not None
    plain = Room.from_dict({**room.to_dict()})
    plain.quickplay, plain.starts_at = False, None
    assert "qp" not in plain.to_dict() and room_view(plain)["quickplay"] is False
