"""Records: a game's hand history, the leaderboard and a player's public profile."""

from __future__ import annotations

from chalicelib import wire
from chalicelib.engine import records as round_records
from chalicelib.engine.model import Status
from chalicelib.engine.views import room_view
from chalicelib.service.core import LEADERBOARD_MIN_GAMES, JsonDict, Service
from chalicelib.service.errors import InvalidInput, Unknown

LEADERBOARD_DEFAULT = 20
LEADERBOARD_MAX = 100
PROFILE_RECENT_GAMES = 10


def history(svc: Service, room_id: str) -> JsonDict:
    """The hand history (``engine.records.history``): every round once the game is over.

    A pure read (the room, then its records): it never writes, so a fault is a 503 that
    changed nothing. Deadlines are applied by the room view, ticks and the timer. During
    play the document holds only what every viewer already sees (the latest reveal).
    """
    room, _ = svc.load(room_id)
    finished = room.status in (Status.FINISHED, Status.CLOSED) and room.results is not None
    records = svc.store.list_rounds(room_id) if finished else []
    return round_records.history(room, records, room_view(room)["results"])


def leaderboard(svc: Service, limit: str | None) -> JsonDict:
    """The top registered players by rating with at least five rated games."""
    n = LEADERBOARD_DEFAULT
    if limit is not None:
        if not (limit.isascii() and limit.isdigit()) or not 1 <= int(limit) <= LEADERBOARD_MAX:
            raise InvalidInput(
                f"limit must be a whole number from 1 to {LEADERBOARD_MAX}", field="limit"
            )
        n = int(limit)
    rows = [r for r in svc.store.leaderboard(n) if r["games"] >= LEADERBOARD_MIN_GAMES]
    return wire.leaderboard(LEADERBOARD_MIN_GAMES, rows)


def profile(svc: Service, username: str) -> JsonDict:
    """A registered player's public profile: rating, games, wins, best finish, recent games.

    Only the player's own rated games are listed; guests have no profile.
    """
    user = svc.store.get_user_by_username(username)
    if user is None or user.guest or user.username is None:
        raise Unknown("no registered user has that username", code="unknown_user")
    stats = svc.store.get_player_stats(user.id)
    recent = svc.store.list_rated_games(user.id, PROFILE_RECENT_GAMES)
    listed = stats.games >= LEADERBOARD_MIN_GAMES
    return wire.profile(user.username, user.name, stats, listed, recent)
