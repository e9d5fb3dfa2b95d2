"""The lobby: creating rooms, seats, join modes, invitations, bots, settings, start, recreate.

Pure functions over ``Room``. Callers pass who is asking (``UserRef``) and the time; checks come
first, changes after, so a refused request leaves the room as it was. Rate limits (passcode
attempts) and operator caps are enforced by the service, which passes the caps in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import game as game_flow
from .dice import Roller
from .errors import Conflict, Forbidden, NotFound, NotHost, WrongPhase
from .model import BOT_LEVELS, MAX_BOTS, Player, Room, Settings, Status
from .systems import rule_system

Event = dict[str, Any]


@dataclass(frozen=True, slots=True)
class UserRef:
    """Who is asking: a signed-in user (registered or guest)."""

    id: str
    name: str
    guest: bool = False
    continue_mode: str = "auto"


def _new_player_id(room: Room) -> str:
    pid = f"p{room.next_player_no}"
    room.next_player_no += 1
    return pid


def _seat_human(room: Room, user: UserRef, *, ready: bool) -> Player:
    player = Player(
        id=_new_player_id(room),
        name=user.name,
        kind="human",
        user_id=user.id,
        ready=ready,
        continue_mode=user.continue_mode,
    )
    room.players.append(player)
    return player


def create_room(room_id: str, user: UserRef, settings: dict[str, Any] | None, now: int) -> Room:
    """A new waiting room holding only its creator, who is host and ready."""
    parsed = Settings.parse(settings or {})
    room = Room(
        id=room_id,
        host_id="",
        created_by_guest=user.guest,
        created_at=now,
        settings=parsed,
        rated=not user.guest,
    )
    room.host_id = _seat_human(room, user, ready=True).id
    return room


def _require_waiting(room: Room) -> None:
    if room.status != Status.WAITING:
        raise Conflict("the room is no longer waiting: play has begun or ended", code="not_waiting")


def _require_host(room: Room, user: UserRef) -> Player:
    me = room.player_of_user(user.id)
    if me is None or me.id != room.host_id:
        raise NotHost("only the host may do this")
    return me


def update_settings(room: Room, user: UserRef, changes: dict[str, Any]) -> None:
    """The host edits settings while waiting."""
    _require_host(room, user)
    _require_waiting(room)
    room.settings = Settings.parse(changes, base=room.settings)


def humans(room: Room) -> list[Player]:
    """Human seats in seat order."""
    return [p for p in room.players if not p.is_bot]


def _check_can_join(room: Room, user: UserRef, max_players: int) -> None:
    if room.player_of_user(user.id) is not None:
        raise Conflict("you are already in this room", code="already_joined")
    if room.status != Status.WAITING:
        raise Conflict("joining is closed: play has begun", code="joining_closed")
    if room.created_by_guest:
        raise Forbidden("rooms created by guests cannot be joined", code="guest_room")
    if user.guest:
        raise Forbidden(
            "guests cannot join other players' rooms; register to join", code="guest_cannot_join"
        )
    if len(room.players) >= max_players:
        raise Conflict(f"the room is full ({max_players} players)", code="room_full")


def join(room: Room, user: UserRef, passcode: str | None, *, max_players: int = 100) -> str:
    """Join per the room's mode: returns ``"joined"`` or ``"pending"`` (approval mode)."""
    _check_can_join(room, user, max_players)
    invited = user.id in room.invited
    mode = room.settings.joining
    if not invited and mode == "passcode" and passcode != room.settings.passcode:
        raise Forbidden("wrong passcode", code="wrong_passcode")
    if not invited and mode == "approval":
        if any(r["user_id"] == user.id for r in room.pending):
            raise Conflict("your request is already pending", code="already_requested")
        if user.id in room.denied:
            raise Forbidden("the host denied your request", code="request_denied")
        room.pending.append({"user_id": user.id, "name": user.name})
        return "pending"
    _seat_human(room, user, ready=False)
    if invited:
        room.invited.remove(user.id)
    if user.id in room.denied:
        # Seated (the host opened the room): an old denial no longer follows the user around.
        room.denied.remove(user.id)
    return "joined"


def _pending_request(room: Room, user_id: str) -> dict[str, str]:
    for r in room.pending:
        if r["user_id"] == user_id:
            return r
    raise NotFound("no pending request from that user", code="no_request")


def approve(room: Room, host: UserRef, user_id: str, *, max_players: int = 100) -> None:
    """The host seats a pending requester."""
    _require_host(room, host)
    _require_waiting(room)
    request = _pending_request(room, user_id)
    if len(room.players) >= max_players:
        raise Conflict(f"the room is full ({max_players} players)", code="room_full")
    room.pending.remove(request)
    _seat_human(room, UserRef(request["user_id"], request["name"]), ready=False)


def deny(room: Room, host: UserRef, user_id: str) -> None:
    """The host turns a pending request down; the requester sees "denied"."""
    _require_host(room, host)
    _require_waiting(room)
    request = _pending_request(room, user_id)
    room.pending.remove(request)
    room.denied.append(user_id)


def invite(room: Room, host: UserRef, user_id: str) -> None:
    """The host invites a registered user: they join without approval or passcode."""
    _require_host(room, host)
    _require_waiting(room)
    if room.created_by_guest:
        raise Forbidden("rooms created by guests cannot be joined", code="guest_room")
    if room.player_of_user(user_id) is not None:
        raise Conflict("that user is already in the room", code="already_joined")
    if user_id not in room.invited:
        room.invited.append(user_id)
    if user_id in room.denied:
        room.denied.remove(user_id)


def set_ready(room: Room, user: UserRef, ready: bool) -> None:
    """A member toggles ready while waiting."""
    me = room.player_of_user(user.id)
    if me is None:
        raise Forbidden("you are not in this room", code="not_a_member")
    _require_waiting(room)
    me.ready = ready


def leave(room: Room, user: UserRef) -> None:
    """Leave a waiting room (or withdraw a request); the host hands over to the earliest human."""
    me = room.player_of_user(user.id)
    if me is None:
        for r in room.pending:
            if r["user_id"] == user.id:
                room.pending.remove(r)
                return
        raise Forbidden("you are not in this room", code="not_a_member")
    _require_waiting(room)
    room.players.remove(me)
    if me.id == room.host_id:
        remaining = humans(room)
        if remaining:
            room.host_id = remaining[0].id
        else:
            room.status = Status.CLOSED


def leave_countdown(room: Room, user: UserRef, roller: Roller, now: int) -> list[Event]:
    """A seat of a quick-play table left during its countdown: a bot takes it over.

    The table stays rated only with two humans left; once the countdown is over, leaving is
    resigning (409 ``countdown_over``).
    """
    seat = room.player_of_user(user.id)
    if seat is None:
        raise Forbidden("you are not in this room", code="not_a_member")
    if room.status != Status.PLAYING or room.starts_at is None or now >= room.starts_at:
        raise Conflict("the game has begun: resign to leave it", code="countdown_over")
    bots = [p for p in room.players if p.is_bot]
    level = next((p.level for p in bots if p.level), "medium")
    used = {p.name for p in bots}
    number = next(n for n in range(1, len(room.players) + 2) if f"Bot {n}" not in used)
    events = game_flow.replace_with_bot(room, seat.id, level, f"Bot {number}", roller, now)
    room.rated = room.rated and len(humans(room)) >= 2
    return events


def add_bot(
    room: Room, user: UserRef, level: str | None = None, *, max_players: int = 100
) -> Player:
    """The host adds a bot at the end of the seats, named with the lowest free number."""
    _require_host(room, user)
    _require_waiting(room)
    level = level or "strong"
    if level not in BOT_LEVELS:
        raise WrongPhase(
            "level must be easy, medium or strong", code="invalid_level", field="level"
        )
    bots = [p for p in room.players if p.is_bot]
    if len(bots) >= MAX_BOTS:
        raise Conflict(f"a room holds at most {MAX_BOTS} bots", code="too_many_bots")
    if len(room.players) >= max_players:
        raise Conflict(f"the room is full ({max_players} players)", code="room_full")
    used = {p.name for p in bots}
    number = next(n for n in range(1, MAX_BOTS + 2) if f"Bot {n}" not in used)
    bot = Player(id=_new_player_id(room), name=f"Bot {number}", kind="bot", level=level, ready=True)
    room.players.append(bot)
    return bot


def remove_bot(room: Room, user: UserRef, player_id: str) -> None:
    """The host removes one bot; the others keep their seats and numbers."""
    _require_host(room, user)
    _require_waiting(room)
    bot = room.player(player_id)
    if bot is None or not bot.is_bot:
        raise NotFound("no such bot in this room", code="unknown_bot")
    room.players.remove(bot)


def start(
    room: Room, user: UserRef, roller: Roller, now: int, pace: tuple[int, int] | None = None
) -> list[Event]:
    """The host starts play: at least two participants, every human ready (``pace``: bots' think time)."""
    _require_host(room, user)
    _require_waiting(room)
    if len(room.players) < 2:
        raise Conflict(
            "at least two participants are needed (add a bot?)", code="not_enough_players"
        )
    not_ready = [p.name for p in humans(room) if not p.ready]
    if not_ready:
        raise Conflict(f"not everyone is ready: {', '.join(not_ready)}", code="not_ready")
    rule_system(room.settings.rules).check_start(room)
    room.pending = []
    room.invited = []
    if pace is None:
        return game_flow.start_game(room, roller, now)
    return game_flow.start_game(room, roller, now, pace)


def recreate(room: Room, user: UserRef, new_room_id: str, now: int) -> Room:
    """A participant of a finished game opens a new waiting room with the same settings and bots."""
    if room.player_of_user(user.id) is None:
        raise Forbidden("only participants of this game may recreate it", code="not_a_member")
    if room.status != Status.FINISHED:
        raise Conflict("only a finished game can be recreated", code="not_finished")
    if room.recreated_as is not None:
        raise Conflict("this room was already recreated", code="already_recreated")
    new = Room(
        id=new_room_id,
        host_id="",
        created_by_guest=user.guest,
        created_at=now,
        settings=room.settings,
        rated=not user.guest,
        recreated_from=room.id,
        lineage=room.lineage or room.id,
    )
    new.host_id = _seat_human(new, user, ready=True).id
    # "Play again" against bots is one click: the same bots, by level and number, in seat order.
    for old_bot in (p for p in room.players if p.is_bot):
        bot = Player(
            id=_new_player_id(new), name=old_bot.name, kind="bot", level=old_bot.level, ready=True
        )
        new.players.append(bot)
    room.recreated_as = new_room_id
    return new
