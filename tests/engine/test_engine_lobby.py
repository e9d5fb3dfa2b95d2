"""SPEC §1, §2, §6, §7: rooms, settings, bots, guests and ratings in the engine."""

from __future__ import annotations

import pytest

from chalicelib.engine import ratings
from chalicelib.engine.dice import Roller, SeededRoller
from chalicelib.engine.errors import (
    Conflict,
    Forbidden,
    InvalidOrder,
    InvalidSetting,
    NotHost,
    Unrated,
)
from chalicelib.engine.model import Player, Room, Settings, Status
from chalicelib.engine.room import (
    UserRef,
    add_bot,
    approve,
    create_room,
    deny,
    invite,
    join,
    leave,
    recreate,
    remove_bot,
    set_ready,
    start,
    update_settings,
)
from chalicelib.engine.views import room_view
from tests.engine.helpers import T0, new_game, pid, user

GUEST = UserRef("g1", "Guest 1", guest=True)


def test_settings_defaults_follow_the_spec() -> None:
    assert Settings.parse({}).to_dict() == {
        "starting_dice": 5,
        "wildcard_chance": 10,
        "penalty": "discard",
        "turn_seconds": 30,
        "break_seconds": 60,
        "joining": "open",
        "passcode": None,
        "rules": "classic",
    }


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("starting_dice", 0),
        ("starting_dice", 11),
        ("wildcard_chance", 7),
        ("penalty", "steal"),
        ("turn_seconds", 45),
        ("break_seconds", 10),
        ("joining", "closed"),
        ("rules", "poker?"),
        ("starting_dice", True),
        ("passcode", "12a4"),
        ("passcode", "12345"),
        ("colour", "red"),
    ],
)
def test_any_other_setting_value_is_refused_naming_the_field(name: str, value: object) -> None:
    with pytest.raises(InvalidSetting) as err:
        Settings.parse({name: value})
    assert err.value.field == name


def test_passcode_mode_needs_a_passcode() -> None:
    with pytest.raises(InvalidSetting) as err:
        Settings.parse({"joining": "passcode"})
    assert err.value.field == "passcode"


def test_new_room_holds_only_its_creator_ready_as_host() -> None:
    room = create_room("r", user(1), None, T0)
    assert [(p.user_id, p.ready) for p in room.players] == [("u1", True)]
    assert room.host_id == room.players[0].id


def test_joiners_start_not_ready_and_toggle() -> None:
    room = create_room("r", user(1), None, T0)
    join(room, user(2), None)
    assert room.players[1].ready is False
    set_ready(room, user(2), True)
    assert room.players[1].ready is True


def test_bots_take_the_lowest_free_number_and_removal_keeps_the_others() -> None:
    room = create_room("r", user(1), None, T0)
    bots = [add_bot(room, user(1)) for _ in range(3)]
    remove_bot(room, user(1), bots[1].id)
    assert [p.name for p in room.players[1:]] == ["Bot 1", "Bot 3"]
    again = add_bot(room, user(1), "easy")
    assert again.name == "Bot 2" and again.level == "easy"
    assert room.players[-1] is again  # a bot takes the seat at the end
    assert room.status == Status.WAITING  # adding a bot never starts play


def test_at_most_nine_bots() -> None:
    room = create_room("r", user(1), None, T0)
    for _ in range(9):
        add_bot(room, user(1))
    with pytest.raises(Conflict):
        add_bot(room, user(1))


def test_only_the_host_adds_bots_and_edits_settings() -> None:
    room = create_room("r", user(1), None, T0)
    join(room, user(2), None)
    with pytest.raises(NotHost):
        add_bot(room, user(2))
    with pytest.raises(NotHost):
        update_settings(room, user(2), {"starting_dice": 3})
    update_settings(room, user(1), {"starting_dice": 3})
    assert room.settings.starting_dice == 3


def test_start_needs_two_participants_and_every_human_ready() -> None:
    room = create_room("r", user(1), None, T0)
    with pytest.raises(Conflict):
        start(room, user(1), SeededRoller(1), T0)
    join(room, user(2), None)
    with pytest.raises(Conflict) as err:
        start(room, user(1), SeededRoller(1), T0)
    assert err.value.code == "not_ready"
    set_ready(room, user(2), True)
    with pytest.raises(NotHost):
        start(room, user(2), SeededRoller(1), T0)
    start(room, user(1), SeededRoller(1), T0)
    assert room.status == Status.PLAYING


def test_joining_closes_when_play_begins_and_settings_freeze() -> None:
    room, _ = new_game(["12345", "12345"])
    with pytest.raises(Conflict) as err:
        join(room, user(9), None)
    assert err.value.code == "joining_closed"
    with pytest.raises(Conflict):
        update_settings(room, user(1), {"starting_dice": 3})


def test_approval_mode_creates_a_pending_request_the_host_approves_or_denies() -> None:
    room = create_room("r", user(1), {"joining": "approval"}, T0)
    assert join(room, user(2), None) == "pending"
    assert join(room, user(3), None) == "pending"
    assert room_view(room, user_id="u2")["me"]["request"] == "pending"
    assert [r["user_id"] for r in room_view(room, user_id="u1")["pending_requests"]] == ["u2", "u3"]
    assert "pending_requests" not in room_view(room, user_id="u2")
    approve(room, user(1), "u2")
    deny(room, user(1), "u3")
    assert room.player_of_user("u2") is not None
    assert room_view(room, user_id="u3")["me"]["request"] == "denied"


def test_a_denial_is_forgotten_once_the_user_joins_another_way() -> None:
    room = create_room("r", user(1), {"joining": "approval"}, T0)
    join(room, user(2), None)
    deny(room, user(1), "u2")
    update_settings(room, user(1), {"joining": "open"})
    assert join(room, user(2), None) == "joined"
    leave(room, user(2))
    update_settings(room, user(1), {"joining": "approval"})
    assert room_view(room, user_id="u2")["me"]["request"] is None
    assert join(room, user(2), None) == "pending"


def test_passcode_is_checked_and_visible_only_to_the_host() -> None:
    room = create_room("r", user(1), {"joining": "passcode", "passcode": "0420"}, T0)
    with pytest.raises(Forbidden):
        join(room, user(2), "1234")
    join(room, user(2), "0420")
    assert room_view(room, user_id="u1")["settings"]["passcode"] == "0420"
    assert "passcode" not in room_view(room, user_id="u2")["settings"]
    assert "passcode" not in room_view(room)["settings"]


def test_invited_user_joins_without_approval_or_passcode() -> None:
    room = create_room("r", user(1), {"joining": "passcode", "passcode": "0420"}, T0)
    invite(room, user(1), "u2")
    assert join(room, user(2), None) == "joined"


def test_host_leaving_hands_over_to_the_earliest_seated_human() -> None:
    room = create_room("r", user(1), None, T0)
    add_bot(room, user(1))
    join(room, user(2), None)
    join(room, user(3), None)
    leave(room, user(1))
    assert room.host_id == room.player_of_user("u2").id
    leave(room, user(2))
    leave(room, user(3))
    assert room.status == Status.CLOSED


def test_guest_rooms_cannot_be_joined_and_guests_cannot_join_others() -> None:
    guest_room = create_room("g", GUEST, None, T0)
    with pytest.raises(Forbidden):
        join(guest_room, user(2), None)
    with pytest.raises(Forbidden):
        join(guest_room, UserRef("g2", "Guest 2", guest=True), None)
    registered = create_room("r", user(1), None, T0)
    with pytest.raises(Forbidden):
        join(registered, GUEST, None)
    add_bot(guest_room, GUEST)
    start(guest_room, GUEST, SeededRoller(3), T0)
    assert guest_room.rated is False


def test_one_account_one_seat() -> None:
    room = create_room("r", user(1), None, T0)
    with pytest.raises(Conflict):
        join(room, user(1), None)


def test_recreate_opens_a_waiting_room_with_the_same_settings_and_a_pointer() -> None:
    room, roller = new_game(["1", "1"], settings={"joining": "passcode", "passcode": "9999"})
    from chalicelib.engine import game

    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)
    new = recreate(room, user(2), "r2", T0 + 1)
    assert room.recreated_as == "r2"
    assert new.settings == room.settings
    assert [(p.user_id, p.ready) for p in new.players] == [("u2", True)]
    assert new.host_id == new.players[0].id
    with pytest.raises(Conflict):
        recreate(room, user(1), "r3", T0 + 2)


def test_recreate_seats_the_same_bots_by_level_and_number_after_the_recreator() -> None:
    room = create_room("r", user(1), {"starting_dice": 1}, T0)
    add_bot(room, user(1), "easy")
    second = add_bot(room, user(1), "strong")
    add_bot(room, user(1), "easy")
    remove_bot(room, user(1), second.id)
    add_bot(room, user(1), "strong")
    start(room, user(1), SeededRoller(1), T0)
    room.status = Status.FINISHED  # as the game's end leaves it: ranks and counts set
    for rank, player in enumerate(room.players, start=1):
        player.rank = rank
    new = recreate(room, user(1), "r2", T0 + 2)
    assert [(p.name, p.kind, p.level, p.ready) for p in new.players] == [
        ("name1", "human", None, True),
        ("Bot 1", "bot", "easy", True),
        ("Bot 3", "bot", "easy", True),
        ("Bot 2", "bot", "strong", True),
    ]
    assert len({p.id for p in new.players}) == 4
    assert all(p.dice_count == 0 and p.rank is None and p.in_game for p in new.players)


# -- ratings ----------------------------------------------------------------------------------


def test_pairwise_elo_for_equal_ratings() -> None:
    # Three humans at 1500: K/(N−1) = 16; the winner scores +1 −0.5 twice → +16.
    changes = ratings.pairwise_changes(
        {"a": 1, "b": 2, "c": 3}, {"a": 1500.0, "b": 1500.0, "c": 1500.0}
    )
    assert changes == {"a": 16.0, "b": 0.0, "c": -16.0}


def test_pairwise_elo_uses_the_expected_score() -> None:
    changes = ratings.pairwise_changes({"a": 1, "b": 2}, {"a": 1600.0, "b": 1400.0})
    expected = 1 / (1 + 10 ** (-200 / 400))
    assert changes["a"] == ratings.round1(32 * (1 - expected))
    assert changes["b"] == -changes["a"]


def test_one_human_against_bots_changes_nothing() -> None:
    room, _ = new_game(["12", "12", "12"], bots=2)
    from chalicelib.engine import game

    roller = SeededRoller(5)
    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)
    # the bots play the rest inside the transition, up to the three-second final reveal
    game.advance(room, T0 + 3000, roller)
    assert room.status == Status.FINISHED
    # resigning without a move of one's own: not rated at all (and bots never are)
    assert ratings.final_changes(room, {"u1": 1500.0}) == {}


def _bid(room: Room, seat: int, roller: Roller) -> None:
    """Seat ``seat`` (to act) opens with one 2."""
    from chalicelib.engine import game

    assert room.game is not None and room.game.turn_player == pid(room, seat)
    action = {"type": "bid", "quantity": 1, "face": 2, "turn": room.game.turn}
    game.act(room, pid(room, seat), action, roller, T0)


def test_elo_preview_enforces_fixed_ranks() -> None:
    room, roller = new_game(["12345"] * 3)
    roller.add_dice("1" * 10)
    from chalicelib.engine import game

    _bid(room, 0, roller)  # a move of their own: rated when resigning
    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)  # rank 3 fixed
    order_ok = [pid(room, 2), pid(room, 1), pid(room, 0)]
    changes = ratings.changes_for_order(room, order_ok, {})
    assert [c["player_id"] for c in changes] == order_ok
    assert changes[0]["delta"] == 16.0
    with pytest.raises(InvalidOrder):
        ratings.changes_for_order(room, [pid(room, 0), pid(room, 1), pid(room, 2)], {})
    with pytest.raises(InvalidOrder):
        ratings.changes_for_order(room, [pid(room, 1), pid(room, 2)], {})


def test_elo_preview_in_an_unrated_game_is_refused() -> None:
    room = create_room("g", GUEST, None, T0)
    add_bot(room, GUEST)
    start(room, GUEST, SeededRoller(1), T0)
    with pytest.raises(Unrated):
        ratings.changes_for_order(room, [p.id for p in room.players], {})


def test_elo_preview_of_a_finished_game_starts_from_the_ratings_it_was_rated_from() -> None:
    room, roller = new_game(["1", "1", "1"])
    from chalicelib.engine import game

    roller.add_dice("11")  # the round restarts after the first resignation
    _bid(room, 0, roller)  # each makes a move of their own, so all three are rated
    game.act(room, pid(room, 0), {"type": "resign"}, roller, T0)
    _bid(room, 1, roller)
    game.act(room, pid(room, 1), {"type": "resign"}, roller, T0)
    applied = ratings.final_changes(room, {"u1": 1500.0, "u2": 1500.0, "u3": 1500.0})
    assert len(applied) == 3
    ratings.apply_to_results(room, applied)
    order = [pid(room, 2), pid(room, 1), pid(room, 0)]
    # Today's ratings already include this game's result; the preview must not count it twice.
    today = {uid: c["after"] for uid, c in applied.items()}
    preview = {c["player_id"]: c for c in ratings.changes_for_order(room, order, today)}
    for p in room.players:
        assert preview[p.id]["before"] == applied[p.user_id]["before"]
        assert preview[p.id]["after"] == applied[p.user_id]["after"]


def test_a_human_out_without_a_move_of_their_own_takes_no_part_in_the_pairs() -> None:
    room, _ = new_game(["12", "12", "12"], bots=0)
    from chalicelib.engine import game

    roller = SeededRoller(5)
    mover = room.player(room.game.turn_player) if room.game else None
    assert mover is not None
    turn = room.game.turn if room.game else 0
    game.act(room, mover.id, {"type": "bid", "quantity": 1, "face": 2, "turn": turn}, roller, T0)
    assert mover.moved and Player.from_dict(mover.to_dict()).moved
    idle = [p for p in room.players if p.id != mover.id]
    game.act(room, idle[0].id, {"type": "resign"}, roller, T0)
    game.act(room, idle[1].id, {"type": "resign"}, roller, T0)
    assert room.status == Status.FINISHED
    ids = {p.user_id for p in room.players}
    changes = ratings.final_changes(room, dict.fromkeys(ids, 1500.0))
    # only the mover is rated: alone, nothing changes; the idle resigners are left out
    assert set(changes) == {mover.user_id}
    assert changes[mover.user_id]["delta"] == 0.0
