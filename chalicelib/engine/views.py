"""The one view function: what a viewer may see of a room (ARCHITECTURE.md decision 2).

Everything a client, a bot, a log line or an error body receives about a room is built here
from (room, viewer). A player sees their own current dice; everyone else sees dice counts.
During bidding no person sees the current round's earlier bids: only the current bid and who
made it (a bot's view adds them: ``bot_view``). Revealed hands appear only in reveals of completed rounds.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from .model import WILD, Phase, Player, Reveal, Room, Status
from .rules import RuleSystem
from .systems import rule_system

_EXACT_SECONDS = 2**31
"""Below this many seconds, ``ms / 1000`` as a float is within half a microsecond of the exact
time, so ``datetime.fromtimestamp`` of it and of the whole seconds agree to the millisecond."""
_PREFIXES: dict[int, str] = {}
"""``YYYY-MM-DDTHH:MM:SS`` by epoch second (bounded: cleared when full)."""


def iso(ms: int | None) -> str | None:
    """Epoch milliseconds as ISO 8601 UTC with ``Z``.

    The date and time of day are formatted once per second (a view carries several stamps of
    the same few seconds); the milliseconds are appended. Outside the exact range (and for
    non-integers) the ``datetime`` formatting does it all, as it always did.
    """
    if ms is None:
        return None
    if type(ms) is int and 0 <= ms < _EXACT_SECONDS * 1000:
        seconds, millis = divmod(ms, 1000)
        prefix = _PREFIXES.get(seconds)
        if prefix is None:
            if len(_PREFIXES) >= 4096:
                _PREFIXES.clear()
            prefix = _PREFIXES[seconds] = datetime.fromtimestamp(seconds, tz=UTC).isoformat(
                timespec="seconds"
            )[:-6]
        return f"{prefix}.{millis:03d}Z"
    return (
        datetime.fromtimestamp(ms / 1000, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def die_out(d: int) -> int | str:
    """A die on the wire: 1–6 or ``"*"``."""
    return "*" if d == WILD else d


def reveal_view(reveal: Reveal, rules: RuleSystem) -> dict[str, Any]:
    """A completed round's reveal (``rules``: the room's system): all public once it is over."""
    return {
        **reveal.extra,
        "round": reveal.round,
        "bid": rules.bid_view(reveal.bid),
        "challenger_id": reveal.challenger_id,
        "count": reveal.count,
        "loser_id": reveal.loser_id or None,
        "winner_id": reveal.winner_id,
        "penalty": reveal.penalty,
        "eliminated": list(reveal.eliminated),
        "final": reveal.final,
        "rows": [
            {
                "player_id": r.player_id,
                "name": r.name,
                "dice": rules.dice_view(r.dice),
                "counted": list(r.counted),
                "bids": [_row_bid(rules, r.player_id, row) for row in r.bids],
            }
            for r in reveal.rows
        ],
    }


_ROW_BIDS: dict[tuple[str, str, tuple[int, ...]], dict[str, Any]] = {}
"""A reveal row's bid on the wire, by rule system, player and stored row (bounded)."""


def _row_bid(rules: RuleSystem, player_id: str, row: tuple[int, ...]) -> dict[str, Any]:
    """A call of a reveal row as the rule system shows it (without its player).

    A pure function of the system, the player and the stored row, and every view repeats the
    latest reveal: a flat one (no list or dict inside) is made once and copied, so the copy is
    the caller's to change; any other is made anew each time.
    """
    key = (rules.name, player_id, tuple(row))
    known = _ROW_BIDS.get(key)
    if known is not None:
        return dict(known)
    out = rules.bid_view(rules.call_from_row(player_id, list(row)))
    out.pop("player_id", None)
    if not any(isinstance(value, list | dict) for value in out.values()):
        if len(_ROW_BIDS) >= 4096:
            _ROW_BIDS.clear()
        _ROW_BIDS[key] = dict(out)
    return out


def _player_out(p: Player, seat: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": p.id,
        "user_id": p.user_id,
        "name": p.name,
        "kind": p.kind,
        "seat": seat,
        "ready": p.ready or p.is_bot,
        "dice_count": p.dice_count,
        "eliminated": p.eliminated,
        "resigned": p.resigned,
        "rank": p.rank,
    }
    if p.is_bot:
        out["level"] = p.level
    return out


def room_view(
    room: Room, *, user_id: str | None = None, player_id: str | None = None
) -> dict[str, Any]:
    """The room as seen by a user (``user_id``), a seat (``player_id``: bots) or a spectator."""
    rules = rule_system(room.settings.rules)
    return _view(room, rules, user_id, player_id, _Parts.of(room, rules))


def room_views(room: Room) -> Callable[[str | None], dict[str, Any]]:
    """``room_view(room, user_id=...)`` for many viewers of one room as it is now.

    What no viewer changes (the players, the game, the results) is built once and shared by
    every view it returns (each view's own dict is new; its shared parts must not be changed):
    a push renders the room for each of its watchers (``effects.publish``).
    """
    rules = rule_system(room.settings.rules)
    parts = _Parts.of(room, rules)
    return lambda user_id: _view(room, rules, user_id, None, parts)


class _Parts:
    """The parts of a room's view that are the same for every viewer."""

    __slots__ = ("game", "players", "results", "settings")

    def __init__(
        self,
        settings: dict[str, Any],
        players: list[dict[str, Any]],
        game: dict[str, Any] | None,
        results: dict[str, Any] | None,
    ) -> None:
        self.settings = settings
        self.players = players
        self.game = game
        self.results = results

    @classmethod
    def of(cls, room: Room, rules: RuleSystem) -> _Parts:
        return cls(
            room.settings.public(),
            [_player_out(p, i) for i, p in enumerate(room.players)],
            _game_view(room, rules),
            _results_view(room),
        )


def _view(
    room: Room, rules: RuleSystem, user_id: str | None, player_id: str | None, parts: _Parts
) -> dict[str, Any]:
    me_player = room.player(player_id) if player_id else room.player_of_user(user_id)
    is_host = me_player is not None and me_player.id == room.host_id
    settings = dict(parts.settings)
    if not is_host:
        # The passcode is visible only to the host.
        settings.pop("passcode", None)
    request = None
    if user_id is not None and me_player is None:
        if any(r["user_id"] == user_id for r in room.pending):
            request = "pending"
        elif user_id in room.denied:
            request = "denied"
    me: dict[str, Any] = {
        "player_id": me_player.id if me_player else None,
        "is_host": is_host,
        "dice": rules.dice_view(me_player.hand) if me_player and me_player.hand else None,
        "request": request,
        "continue_mode": me_player.continue_mode if me_player else None,
        "invited": user_id is not None and user_id in room.invited,
    }
    view: dict[str, Any] = {
        "id": room.id,
        "status": room.status.value,
        "host_id": room.host_id,
        "created_by_guest": room.created_by_guest,
        "recreated_as": room.recreated_as,
        "recreated_from": room.recreated_from,
        "rated": room.rated,
        "settings": settings,
        "players": parts.players,
        "me": me,
        "game": parts.game,
        "results": parts.results,
        "quickplay": room.quickplay,
    }
    if is_host:
        view["pending_requests"] = [dict(r) for r in room.pending]
    return view


def sees_as_spectator(room: Room, user_id: str | None) -> bool:
    """Whether ``room_view(room, user_id=user_id)`` is the signed-out spectator's view.

    True for a signed-in watcher with no seat, no request to join (pending or denied) and no
    invitation: ``me`` then says nothing of them, as it says nothing of a spectator. A push
    fan-out renders and encodes that view once for all of them (``effects.publish``).
    """
    if user_id is None:
        return True
    if room.player_of_user(user_id) is not None or user_id in room.invited:
        return False
    return user_id not in room.denied and not any(r["user_id"] == user_id for r in room.pending)


def _game_view(room: Room, rules: RuleSystem) -> dict[str, Any] | None:
    game = room.game
    if game is None:
        return None
    phase = game.phase
    deadline = iso(game.deadline)
    turn = None
    if phase == Phase.BIDDING and game.turn_player is not None:
        turn = {"number": game.turn, "player_id": game.turn_player, "deadline": deadline}
    brk = None
    if phase == Phase.BREAK:
        brk = {
            "deadline": deadline,
            "agreed": list(game.agreed),
            "opener_id": game.opener,
        }
    return {
        "round": game.round,
        "phase": phase.value,
        "turn": turn,
        # The current bid only: the round's earlier bids stay hidden until the reveal.
        "current_bid": rules.bid_view(game.current_bid) if game.current_bid else None,
        "table": rules.table_view(room) if phase == Phase.BIDDING else None,
        "total_dice": sum(p.dice_count for p in room.players if p.in_game),
        "break": brk,
        "deadline": deadline if room.status == Status.PLAYING else None,
        "opener_id": game.opener,
        "last_reveal": reveal_view(game.last_reveal, rules) if game.last_reveal else None,
        **({"starts_at": iso(room.starts_at)} if room.starts_at is not None else {}),
    }


def _results_view(room: Room) -> dict[str, Any] | None:
    if room.results is None or room.game is None:
        return None
    game = room.game
    ids = [p.id for p in room.players]
    progress = [
        {"round": rnd, "counts": dict(zip(ids, counts, strict=True))}
        for rnd, counts in zip(game.progress_rounds, game.dice_progress, strict=True)
    ]
    if progress:
        progress[-1]["final"] = True
    out = {"ranking": [dict(r) for r in room.results.get("ranking", [])], "dice_progress": progress}
    if "elo" in room.results:
        out["elo"] = room.results["elo"]
    return out


def bot_view(room: Room, player_id: str) -> dict[str, Any]:
    """A player's view of the bot's own seat, plus the round's bids so far: what a bot decides from.

    ``game.round_bids`` lists the current round's announced moves in order (``bid_view`` of
    each: ``player_id``, ``quantity``, ``face`` and the system's extras). Every one was
    announced at the table, so a bot may remember them as a person at the table would; no
    view or push for people lists them (docs/BOTS.md, "What a bot knows").
    """
    view = room_view(room, player_id=player_id)
    game = room.game
    if view["game"] is not None and game is not None:
        rules = rule_system(room.settings.rules)
        view["game"]["round_bids"] = [rules.bid_view(b) for b in game.round_bids]
    return view


def events_for(
    room: Room, events: list[dict[str, Any]], version: int | None = None
) -> list[dict[str, Any]]:
    """Events on the wire: every event of one change, in order, with what it said.

    Each bid is announced with its details in the push of the change that made it (bots'
    included) and never again: no view lists the round's earlier bids, and a later push only
    carries the events of its own change. Events hold no hidden dice (a Wild Stars ``show``
    is public, a Poker claim is what was said, not the cup). Times become ISO 8601.

    ``version`` is the room version the change made: each event then gets its ``id``,
    ``"<version>.<index>"`` (its place in the change), unique in the room and the same in
    every viewer's push, so a client keeps each event once.
    """
    out = []
    for index, e in enumerate(events):
        e = dict(e) if version is None else {"id": f"{version}.{index}", **e}
        for name in ("at", "deadline"):
            if isinstance(e.get(name), int):
                e[name] = iso(e[name])
        if isinstance(e.get("action"), dict):
            e["action"] = dict(e["action"])
        out.append(e)
    return out
