"""Invitations: the host invites a registered user; a user's invitations to rooms still waiting."""

from __future__ import annotations

from chalicelib import effects, notify
from chalicelib.engine import room as lobby
from chalicelib.engine.model import Room, Status
from chalicelib.service.callers import Caller
from chalicelib.service.core import Committed, Event, JsonDict, Service
from chalicelib.service.errors import NotAllowed, TooMany, Unknown
from chalicelib.service.lobby import admit_lobby_action


def live_invitations(svc: Service, user_id: str) -> list[JsonDict]:
    """The user's invitations to rooms still waiting; stale ones are removed on the way.

    Invitations are removed when their room leaves waiting (``effects.plan``); this read
    repairs any that bookkeeping missed. At most ``invitations_per_user`` rooms are read.
    """
    live = []
    for inv in svc.store.list_invitations(user_id):
        stored = svc.store.get_room(str(inv["room_id"]))
        if stored is not None and stored.state.get("status") == Status.WAITING.value:
            live.append(inv)
        else:
            svc.after([effects.RemoveInvitation(user_id, str(inv["room_id"]))])
    return live


def invite(svc: Service, caller: Caller, room_id: str, username: str) -> JsonDict:
    """The host invites a registered user by username (404 for an unknown one)."""
    host = lobby.UserRef(caller.user_id, caller.name, caller.guest)
    room, _ = svc.load(room_id)
    seat = room.player_of_user(caller.user_id)
    if seat is None or seat.id != room.host_id:
        raise NotAllowed("only the host may invite", code="not_host")
    invitee = svc.store.get_user_by_username(username)
    if invitee is None or invitee.guest:
        raise Unknown("no registered user has that username", code="unknown_user")
    invitee_id = invitee.id
    held = live_invitations(svc, invitee_id)
    if room_id not in {inv["room_id"] for inv in held} and (
        len(held) >= svc.cfg.invitations_per_user
    ):
        raise TooMany(
            "that user already holds the maximum number of invitations",
            code="too_many_invitations",
            field="username",
        )

    def change(r: Room) -> list[Event]:
        if invitee_id not in r.invited and len(r.invited) >= svc.cfg.invitations_per_room:
            raise TooMany(
                f"a room holds at most {svc.cfg.invitations_per_room} invitations",
                code="too_many_invitations",
                field="username",
            )
        lobby.invite(r, host, invitee_id)
        return []

    def then(done: Committed) -> list[effects.Effect]:
        host_seat = done.room.host
        host_name = host_seat.name if host_seat else caller.name
        rules = done.room.settings.rules
        # The invitee's browsers and devices are told (never raises); the invitation is
        # required, last: a fault that remains is a 503, safe to repeat.
        return [
            notify.invited_effect(invitee_id, room_id, rules, host_name),
            effects.AddInvitation(invitee_id, room_id, host_name, svc.now()),
        ]

    done = svc.change_room(
        room_id, change, caller=caller, admit=admit_lobby_action(svc, caller), then=then
    )
    return svc.answer(done, caller.user_id)
