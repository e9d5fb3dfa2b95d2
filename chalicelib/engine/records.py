"""Round records and the hand-history document (pure: built from the room and its records).

A round record is everything public about one completed round, written once into its own
item beside the room (never into the room item): the dice counts the round started with, the
bids in the order they were made (Poker Liar Dice: the claims), and the reveal exactly as the
players saw it (``views.reveal_view``: hands, the call, the counted total, the outcome, the
penalty, eliminations and the rule system's extras such as shown or exposed dice).

The hand history (``history``) is the versioned document ``GET /rooms/{id}/history`` answers:
every round once the game has finished; during play only what is already public.
"""

from __future__ import annotations

from typing import Any, Final

from .model import CompletedRound, Room, Status
from .systems import rule_system
from .views import iso, reveal_view

FORMAT: Final = "liars-lies/hand-history"
VERSION: Final = 1


def round_record(room: Room, done: CompletedRound) -> dict[str, Any]:
    """The public record of one completed round (JSON, times in ISO 8601 UTC).

    A round a resignation abandoned has ``reveal`` null and ``resigned_id``: its hands were
    never shown, so they are not recorded. ``attempt`` tells it from the round dealt again
    under the same number (records are keyed by round and attempt).
    """
    rules = rule_system(room.settings.rules)
    ids = [p.id for p in room.players]
    common = {
        "dice_counts": dict(zip(ids, done.counts, strict=False)),
        "bids": [rules.bid_view(b) for b in done.bids],
    }
    if done.reveal is None:
        return {
            "round": done.round,
            "attempt": done.attempt,
            "at": iso(done.at),
            **common,
            "reveal": None,
            "resigned_id": done.resigned_id,
        }
    return {
        "round": done.reveal.round,
        "attempt": done.attempt,
        "at": iso(done.reveal.at),
        **common,
        "reveal": reveal_view(done.reveal, rules),
    }


def record_key(record: dict[str, Any]) -> tuple[int, int]:
    """A round record's key and order: its round, then its attempt (0 when absent)."""
    return int(record["round"]), int(record.get("attempt", 0))


def history(
    room: Room, records: list[dict[str, Any]], results: dict[str, Any] | None
) -> dict[str, Any]:
    """The hand-history document of ``room``.

    ``records`` are the stored round records; they are listed only once the game has finished
    (``complete``). Before that the document holds the latest reveal alone, which every viewer
    already sees, and never a current hand or a current round's bid.
    """
    settings = room.settings.to_dict()
    settings.pop("passcode", None)
    game = room.game
    finished = room.status in (Status.FINISHED, Status.CLOSED) and room.results is not None
    rules = rule_system(room.settings.rules)
    players = []
    for seat, p in enumerate(room.players):
        row: dict[str, Any] = {
            "id": p.id,
            "name": p.name,
            "kind": p.kind,
            "user_id": p.user_id,
            "seat": seat,
            "rank": p.rank if finished else None,
        }
        if p.is_bot:
            row["level"] = p.level
        players.append(row)
    return {
        "format": FORMAT,
        "version": VERSION,
        "room_id": room.id,
        "status": room.status.value,
        "complete": finished,
        "rules": room.settings.rules,
        "settings": settings,
        "rated": room.rated,
        "players": players,
        "finished_at": iso(game.finished_at) if finished and game else None,
        "rounds": sorted(records, key=record_key) if finished else [],
        "last_reveal": (
            reveal_view(game.last_reveal, rules) if game is not None and game.last_reveal else None
        ),
        "results": results if finished else None,
    }
