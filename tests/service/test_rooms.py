"""The service's own rules on its fakes: ratings applied once, recreate, a lost race, passed
deadlines, preferences."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.engine.errors import Conflict, DomainError
from chalicelib.errors import service_status
from chalicelib.ports import StoredRoom
from chalicelib.service import accounts, lobby, play
from chalicelib.service.errors import Clash, Unknown
from tests.service.conftest import Table


def _resign(table: Table, rid: str, *callers: Any) -> None:
    for caller in callers:
        play.act(table.service, caller, rid, {"type": "resign"})


def test_a_finished_rated_game_moves_the_ratings_exactly_once(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    before = table.store.get_ratings([a.user_id, b.user_id])
    rid = table.playing(a, b)
    assert table.play_out(rid, a, b)["status"] == "finished"
    after = table.store.get_ratings([a.user_id, b.user_id])
    assert sorted(after.values()) != sorted(before.values())
    assert sum(after.values()) == pytest.approx(sum(before.values()))
    room, version = table.room(rid)
    assert room.results is not None and "elo" in room.results
    # Every later touch of the finished room (views, ticks, time passing) leaves them be.
    for _ in range(3):
        table.clock.advance(60_000)
        play.get_room(table.service, rid, a)
    assert table.store.get_ratings([a.user_id, b.user_id]) == after
    assert table.room(rid)[1] == version
    assert table.store.get_standings([b.user_id])[b.user_id].games == 1


def test_a_game_against_bots_only_is_not_a_rated_game_for_the_profiles(table: Table) -> None:
    a = table.user("alice")
    svc = table.service
    rid = lobby.create_room(svc, a, {"starting_dice": 1})["id"]
    lobby.add_bot(svc, a, rid, "easy")
    lobby.start(svc, a, rid)
    _resign(table, rid, a)
    assert table.store.get_standings([a.user_id])[a.user_id].games == 0


def test_recreate_opens_a_waiting_room_with_the_same_settings_and_points_the_old_one_to_it(
    table: Table,
) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b, turn_seconds=60)
    table.play_out(rid, a, b)
    new = lobby.recreate(table.service, b, rid)
    assert new["status"] == "waiting" and new["version"] == 1
    assert new["settings"]["turn_seconds"] == 60
    assert [p["user_id"] for p in new["players"]] == [b.user_id]
    old, _ = table.room(rid)
    assert old.recreated_as == new["id"]
    assert new["id"] in table.store.open_rooms(b.user_id)
    with pytest.raises(Conflict) as refused:
        lobby.recreate(table.service, a, rid)
    assert refused.value.code == "already_recreated"


def test_recreate_needs_a_finished_game(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b)
    with pytest.raises(DomainError) as refused:
        lobby.recreate(table.service, a, rid)
    assert refused.value.code == "not_finished"


def test_a_lost_race_is_a_409_with_the_callers_view_now_and_no_effects(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    svc = table.service
    rid = lobby.create_room(
        svc, a, {"starting_dice": 1, "joining": "passcode", "passcode": "4321"}
    )["id"]
    lobby.join(svc, b, rid, "4321")
    real_save = table.store.save_room
    raced = False

    def save_after_a_rival(room_id: str, *args: Any, **kwargs: Any) -> int:
        nonlocal raced
        if not raced:
            raced = True
            lobby.set_ready(svc, b, rid, True)  # the rival's write lands first
        return real_save(room_id, *args, **kwargs)

    table.store.save_room = save_after_a_rival  # type: ignore[method-assign]
    pushed, scheduled = len(table.notifier.sent), dict(table.timers.scheduled)
    with pytest.raises(Clash) as lost:
        lobby.update_settings(svc, a, rid, {"turn_seconds": 15})
    err = lost.value
    assert (service_status(err), err.code) == (409, "conflict")
    room, version = table.room(rid)
    assert err.room is not None and err.room["version"] == version
    assert room.settings.turn_seconds != 15  # nothing of the lost change was applied
    assert err.room["settings"]["passcode"] == "4321"  # the host's own view
    assert len(table.notifier.sent) == pushed and table.timers.scheduled == scheduled


def test_a_refused_move_still_saves_the_deadlines_that_passed(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b, starting_dice=2, turn_seconds=15)
    room, version = table.room(rid)
    assert room.game is not None
    turn = room.game.turn
    table.clock.advance(16_000)  # the turn's deadline passed: the server plays the timeout
    with pytest.raises(DomainError):
        play.act(table.service, a, rid, {"type": "bid", "quantity": 1, "face": 2, "turn": turn})
    room, now = table.room(rid)
    assert now == version + 1 and room.game is not None and room.game.turn != turn


def test_viewing_a_room_with_nothing_due_writes_nothing_and_pushes_nothing(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b)
    _, version = table.room(rid)
    pushed = len(table.notifier.sent)
    view = play.get_room(table.service, rid, None)
    assert view["version"] == version == table.room(rid)[1]
    assert len(table.notifier.sent) == pushed


def test_viewing_a_room_applies_its_passed_deadlines_once(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b, turn_seconds=15)
    _, version = table.room(rid)
    table.clock.advance(16_000)
    first = play.get_room(table.service, rid, None)
    second = play.get_room(table.service, rid, b)
    assert first["version"] == second["version"] == version + 1


def test_preferences_apply_in_the_callers_hosted_rooms_and_the_named_room_only(
    table: Table,
) -> None:
    a, b, c = table.user("alice"), table.user("bobby"), table.user("carol")
    svc = table.service
    hosted = lobby.create_room(svc, a, {})["id"]
    named = lobby.create_room(svc, b, {})["id"]
    other = lobby.create_room(svc, c, {})["id"]
    lobby.join(svc, a, named, None)
    lobby.join(svc, a, other, None)
    answer = accounts.set_preferences(svc, a, "manual", named)  # users start on auto
    assert answer == {"preferences": {"continue_mode": "manual", "language": None}}
    record = table.store.get_user(a.user_id)
    assert record is not None and record.continue_mode == "manual"

    def mode(rid: str) -> str | None:
        seat = table.room(rid)[0].player_of_user(a.user_id)
        return seat.continue_mode if seat else None

    assert (mode(hosted), mode(named), mode(other)) == ("manual", "manual", "auto")


def test_starting_play_gives_each_human_the_continue_mode_remembered_now(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    svc = table.service
    rid = lobby.create_room(svc, a, {"starting_dice": 1})["id"]
    lobby.join(svc, b, rid, None)
    lobby.set_ready(svc, b, rid, True)
    accounts.set_preferences(
        svc, b, "manual", None
    )  # b hosts nothing: the seat keeps its mode for now
    seat = table.room(rid)[0].player_of_user(b.user_id)
    assert seat is not None and seat.continue_mode == "auto"
    lobby.start(svc, a, rid)
    seat = table.room(rid)[0].player_of_user(b.user_id)
    assert seat is not None and seat.continue_mode == "manual"


def test_an_unknown_room_is_404_and_a_room_that_vanishes_stays_404(table: Table) -> None:
    with pytest.raises(Unknown) as missing:
        play.get_room(table.service, "nope", None)
    assert (service_status(missing.value), missing.value.code) == (404, "unknown_room")
    a = table.user("alice")
    with pytest.raises(Unknown) as missing:
        play.act(table.service, a, "nope", {"type": "resign"})
    assert service_status(missing.value) == 404


def test_the_stored_room_is_the_one_the_answer_shows(table: Table) -> None:
    a, b = table.user("alice"), table.user("bobby")
    rid = table.playing(a, b)
    stored = table.store.get_room(rid)
    assert isinstance(stored, StoredRoom)
    assert play.get_room(table.service, rid, a)["version"] == stored.version
