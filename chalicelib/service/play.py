"""Play: the room as a viewer sees it now, a player's move, the Elo preview."""

from __future__ import annotations

from chalicelib.engine import game as game_flow
from chalicelib.engine import ratings as elo
from chalicelib.engine.commands import Command
from chalicelib.engine.errors import NotAPlayer
from chalicelib.engine.model import Room
from chalicelib.service.callers import Caller
from chalicelib.service.core import Event, JsonDict, Service
from chalicelib.service.errors import Clash, NotAllowed


def get_room(svc: Service, room_id: str, caller: Caller | None) -> JsonDict:
    """The caller's view now: every passed deadline is applied (and saved) first.

    ``GET /rooms/{id}`` and ``POST /rooms/{id}/tick`` are this one use case; the timer
    handler and the WebSocket's subscribe and tick call ``change_room`` the same way.
    """
    return svc.answer(svc.change_room(room_id), caller.user_id if caller else None)


def act(svc: Service, caller: Caller, room_id: str, action: Command | JsonDict) -> JsonDict:
    """A player's bid, Liar!, agree or resign (``turn`` guards bid and Liar!)."""

    def change(room: Room) -> list[Event]:
        seat = room.player_of_user(caller.user_id)
        if seat is None:
            raise NotAPlayer("you have no seat in this game")
        return game_flow.act(room, seat.id, action, svc.deps.roller, svc.now())

    done = svc.change_room(room_id, change, caller=caller)
    return svc.answer(done, caller.user_id)


def elo_preview(svc: Service, caller: Caller, room_id: str, order: list[str]) -> JsonDict:
    """The rating changes a complete finishing order would produce (participants only)."""
    room = svc.change_room(room_id).room
    if room.player_of_user(caller.user_id) is None:
        raise NotAllowed("only participants may preview ratings", code="not_a_member")
    if room.game is None:
        raise Clash("the game has not started", code="not_started")
    uids = [p.user_id for p in room.players if not p.is_bot and p.user_id]
    ratings = svc.store.get_ratings(uids) if room.rated else {}
    return {"changes": elo.changes_for_order(room, order, ratings)}
