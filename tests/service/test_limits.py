"""The service's limits on its fakes: open rooms per user, passcode attempts, chat rate,
invitations. A refusal changes nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from chalicelib.engine.errors import Forbidden
from chalicelib.errors import service_status, to_response
from chalicelib.ports import RoomLimitReached, Unavailable
from chalicelib.service import chat, invitations, lobby
from chalicelib.service.errors import TooMany
from tests.service.conftest import Table


def test_the_open_room_cap_refuses_one_room_too_many_and_frees_a_slot_on_leaving(
    table: Table,
) -> None:
    table.settings = replace(table.settings, max_rooms_per_user=2)
    a = table.user("alice")
    first = lobby.create_room(table.service, a, {})["id"]
    lobby.create_room(table.service, a, {})
    with pytest.raises(RoomLimitReached) as refused:
        lobby.create_room(table.service, a, {})
    answer = to_response(refused.value)
    assert answer is not None and answer[0] == 429
    assert len(table.store.open_rooms(a.user_id)) == 2
    lobby.leave(table.service, a, first)  # the host alone leaves: the room closes
    lobby.create_room(table.service, a, {})
    assert len(table.store.open_rooms(a.user_id)) == 2


def test_a_release_lost_after_commit_is_reconciled_by_the_next_creation(table: Table) -> None:
    table.settings = replace(table.settings, max_rooms_per_user=1)
    a = table.user("alice")
    rid = lobby.create_room(table.service, a, {})["id"]

    def failing(user_id: str, room_id: str) -> None:
        raise RuntimeError("the release is lost")

    real = table.store.release_room
    table.store.release_room = failing  # type: ignore[method-assign]
    lobby.leave(table.service, a, rid)  # committed; the release fails and is only logged
    table.store.release_room = real  # type: ignore[method-assign]
    assert table.store.open_rooms(a.user_id) == [rid]
    new = lobby.create_room(table.service, a, {})["id"]
    assert table.store.open_rooms(a.user_id) == [new]


def test_wrong_passcodes_are_limited_per_user_and_the_refusal_changes_nothing(
    table: Table,
) -> None:
    table.settings = replace(table.settings, passcode_max_attempts=2)
    a, b = table.user("alice"), table.user("bobby")
    rid = lobby.create_room(table.service, a, {"joining": "passcode", "passcode": "1234"})["id"]
    for _ in range(2):
        with pytest.raises(Forbidden):
            lobby.join(table.service, b, rid, "0000")
    _, version = table.room(rid)
    with pytest.raises(TooMany) as limited:
        lobby.join(table.service, b, rid, "1234")  # even the right one, once the limit is reached
    assert (service_status(limited.value), limited.value.code) == (429, "rate_limited")
    room, now = table.room(rid)
    assert now == version and room.player_of_user(b.user_id) is None


def test_the_right_passcode_gives_the_rooms_attempt_back(table: Table) -> None:
    table.settings = replace(table.settings, passcode_room_max_attempts=2)
    a = table.user("alice")
    rid = lobby.create_room(table.service, a, {"joining": "passcode", "passcode": "1234"})["id"]
    for i in range(3):  # three right codes: each attempt is given back
        joiner = table.user(f"joiner{i}")
        lobby.join(table.service, joiner, rid, "1234")
    late = table.user("late")
    with pytest.raises(Forbidden):
        lobby.join(table.service, late, rid, "0000")
    with pytest.raises(Forbidden):
        lobby.join(table.service, table.user("later"), rid, "0000")
    with pytest.raises(TooMany) as limited:
        lobby.join(table.service, table.user("last"), rid, "1234")
    assert service_status(limited.value) == 429


def test_chat_is_rate_limited_per_user_and_room(table: Table) -> None:
    table.settings = replace(table.settings, chat_rate=2)
    a, b = table.user("alice"), table.user("bobby")
    rid = lobby.create_room(table.service, a, {})["id"]
    for text in ("one", "two"):
        table.clock.advance(1)
        chat.post_chat(table.service, a, rid, text)
    with pytest.raises(TooMany) as limited:
        chat.post_chat(table.service, a, rid, "three")
    assert service_status(limited.value) == 429
    table.clock.advance(1)
    chat.post_chat(table.service, b, rid, "mine")  # another user's budget is their own
    texts = [m["text"] for m in chat.chat(table.service, rid, None)["messages"]]
    assert texts == ["one", "two", "mine"]


def test_a_room_holds_a_limited_number_of_invitations(table: Table) -> None:
    table.settings = replace(table.settings, invitations_per_room=1)
    a, b, c = table.user("alice"), table.user("bobby"), table.user("carol")
    rid = lobby.create_room(table.service, a, {"joining": "approval"})["id"]
    invitations.invite(table.service, a, rid, "bobby")
    invitations.invite(table.service, a, rid, "bobby")  # inviting again is idempotent
    with pytest.raises(TooMany) as limited:
        invitations.invite(table.service, a, rid, "carol")
    assert (service_status(limited.value), limited.value.code) == (429, "too_many_invitations")
    assert [i["room_id"] for i in table.store.list_invitations(b.user_id)] == [rid]
    assert table.store.list_invitations(c.user_id) == []


def test_an_invitation_that_cannot_be_written_is_a_503_after_the_rooms_write(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chalicelib.retry.sleep", lambda _s: None)
    a, _ = table.user("alice"), table.user("bobby")
    rid = lobby.create_room(table.service, a, {"joining": "approval"})["id"]

    def unavailable(*_args: Any, **_kwargs: Any) -> None:
        raise Unavailable("throttled")

    table.store.add_invitation = unavailable  # type: ignore[method-assign]
    with pytest.raises(Unavailable):
        invitations.invite(table.service, a, rid, "bobby")
    room, _ = table.room(rid)
    assert room.invited  # the room's write stands; repeating the invitation completes it
