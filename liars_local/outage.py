"""After an outage: a human's turn that ran out while the server was down starts again.

The rooms' deadlines are wall-clock times in the store. While the server runs, a late wake-up
catches up exactly (``advance`` applies each passed deadline at its own time). But a turn
whose deadline passed while the server was down was a turn nobody could play: applying its
timeout at the restart would make a player lose it (and, for a long outage, every turn after
it). So at start, before a room in play is woken, a deadline in the past is moved: a human's
turn restarts with its whole length from now, a break between rounds too (its end starts a
turn). Bots' turns and the final reveal keep theirs (nobody loses a turn by them).
docs/REALTIME.md ("Timers", outages and clock steps) has the decision.
"""

from __future__ import annotations

import logging

from chalicelib.engine.model import Phase, Room, Status
from chalicelib.ports import Store, VersionConflict
from chalicelib.service.core import summary

log = logging.getLogger(__name__)


def restart_lapsed_deadline(store: Store, room_id: str, now_ms: int) -> bool:
    """Move the room's passed turn or break deadline to a whole one from ``now_ms``.

    True when it was moved (one conditional write: a room changed meanwhile is left as it
    is, its change having applied the deadline already)."""
    stored = store.get_room(room_id)
    if stored is None:
        return False
    room = Room.from_dict(stored.state)
    game = room.game
    if room.status != Status.PLAYING or game is None or game.deadline is None:
        return False
    if game.deadline > now_ms:
        return False
    if game.phase == Phase.BIDDING:
        player = room.player(game.turn_player or "")
        if player is None or player.is_bot:
            return False
        game.deadline = now_ms + room.settings.turn_seconds * 1000
    elif game.phase == Phase.BREAK:
        game.deadline = now_ms + room.settings.break_seconds * 1000
    else:
        return False
    try:
        store.save_room(room_id, room.to_dict(), summary(room), stored.version)
    except VersionConflict:
        return False
    log.info("room %s: a deadline that passed while the server was down starts again", room_id)
    return True
