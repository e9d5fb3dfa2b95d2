"""A bot decides only from what its seat may know: never from another bot's private notes.

Every bot of a room is handed the room's one shared ``bot_memory``. Part of it is public (an
opponent model built by ``observe`` from completed reveals, which every player sees, and the
public settings); part of it is per bot (a Poker bot's notes about the cup *it* held when it
claimed, the claim it is answering, what it learned for itself). This test plays seeded
bots-only games in every rule system, stops at every bot decision, and asks every bot level to
decide again with every *other* bot's notes scrambled, or removed: the action, the bot's own
notes and the public entries it leaves behind must be exactly the same, and the other bots'
notes must be left untouched. (That no level reads another player's hidden dice is proved by
``tests/engine/test_bots.py::test_no_level_in_any_rule_system_reads_hidden_dice``.)
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from chalicelib.engine import game
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Player, Room, Settings
from chalicelib.engine.systems import SYSTEMS, rule_system

PUBLIC = {
    "w": "classic: the room's wildcard chance (a public setting)",
    "o": "classic: opponent counters per player, from completed reveals",
    "oc": "classic: per player, openings revealed and how many their own dice covered",
    "pe": "perudo: opponent counters per player, from completed reveals",
    "pk": "poker: readings of claimants and answerers, from reveals and public claim chances",
}
"""Memory entries any seat may read: derived from public events, reveals and settings."""

PER_BOT = {
    "pc": "poker: the cup this bot held when it claimed (its own dice)",
    "pq": "poker: the claim this bot is answering, with the chances it saw for itself",
    "pr": "poker: per claimant, what this bot learned of their claims for itself",
    "pa": "poker: the claim this bot passed, to score how its receiver answered",
}
"""Memory entries keyed by bot id: each is that bot's own note, for it alone."""

LEVELS = ("easy", "medium", "strong", "random", "naive")
SEATS = ("easy", "medium", "strong", "strong")
"""Bots-only tables with a bot of every product level (two strong ones write the most notes)."""
GAMES = {"classic": 2, "perudo": 2, "wild-stars": 2, "poker": 4}
MAX_POINTS = 80
"""Decision points checked per rule system (every bot decision of the games, up to this)."""


def decision_points(system: str, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every bot decision of seeded bots-only games: its view, the room's whole bot memory,
    the memory the engine handed the bot, and the roller's state."""
    rules = rule_system(system)
    real = rules.bot_action
    seen: list[dict[str, Any]] = []
    playing: list[Room] = []

    def spy(view: dict[str, Any], level: str, memory: dict[str, Any], roller: Any) -> Any:
        seen.append(
            {
                "view": copy.deepcopy(view),
                "memory": copy.deepcopy(playing[-1].bot_memory),
                "handed": copy.deepcopy(memory),
                "roller": copy.deepcopy(roller),
            }
        )
        return real(view, level, memory, roller)

    monkeypatch.setattr(rules, "bot_action", spy)
    for seed in range(GAMES[system]):
        room = Room(
            id="r",
            host_id="",
            created_by_guest=True,
            created_at=0,
            settings=Settings.of(rules=system, starting_dice=3, lives=2),
        )
        playing.append(room)
        room.players = [
            Player(id=f"p{i}", name=f"Bot {i}", kind="bot", level=level)
            for i, level in enumerate(SEATS, start=1)
        ]
        game.start_game(room, SeededRoller(1000 + seed), 0)
    monkeypatch.undo()
    return seen[:MAX_POINTS]


def split(memory: dict[str, Any], me: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(what ``me`` may read: public entries and its own notes; every other bot's notes)."""
    unknown = set(memory) - set(PUBLIC) - set(PER_BOT)
    assert not unknown, f"classify these bot memory entries as public or per bot: {unknown}"
    mine: dict[str, Any] = {k: v for k, v in memory.items() if k in PUBLIC}
    others: dict[str, Any] = {}
    for key in PER_BOT:
        if key in memory:
            mine[key] = {b: v for b, v in memory[key].items() if b == me}
            theirs = {b: v for b, v in memory[key].items() if b != me}
            if theirs:
                others[key] = theirs
    return mine, others


def scrambled(entry: Any, roller: SeededRoller) -> Any:
    """A note of the same shape with different contents (rounds, counts and ids kept).

    Leading integers of a list (the round, the rerolls seen) and player ids stay, so that code
    reading another bot's note would find one that applies to the hand; dice strings, chances
    and learned scores change.
    """
    if isinstance(entry, dict):
        return {k: scrambled(v, roller) for k, v in entry.items()}
    if isinstance(entry, list):
        out = list(entry)
        keep = 2 if len(entry) in (4, 5) and isinstance(entry[0], int) else 1
        for i in range(keep, len(entry)):
            v = entry[i]
            if isinstance(v, bool):
                out[i] = not v
            elif isinstance(v, int):
                out[i] = v + 1 + roller.below(2000) if v >= 0 else v - 1 - roller.below(2000)
            elif isinstance(v, str) and v.isdigit() and len(v) == 5:  # a cup
                out[i] = "".join(str(1 + (int(c) + roller.below(5)) % 6) for c in v)
            elif isinstance(v, str) and v.isdigit():  # exposed positions
                out[i] = "".join(sorted({str(roller.below(5)) for _ in v}))
        return out
    return entry


def with_others(
    memory: dict[str, Any], me: str, players: list[str], how: str, roller: SeededRoller
) -> dict[str, Any]:
    """``memory`` with every other bot's notes removed, or scrambled (and given to every seat).

    Scrambling also hands every other seat a note shaped like one that exists (another bot's
    or ``me``'s own), so a bot that looked up the wrong seat would find something there.
    """
    out = copy.deepcopy(memory)
    for key in PER_BOT:
        notes = out.get(key)
        if not isinstance(notes, dict):
            continue
        if how == "removed":
            out[key] = {b: v for b, v in notes.items() if b == me}
            continue
        sample = next(iter(notes.values()), None)
        for b in players:
            if b == me:
                continue
            base = notes.get(b, sample)
            if base is not None:
                notes[b] = scrambled(copy.deepcopy(base), roller)
    return out


def decide(system: str, point: dict[str, Any], level: str, memory: dict[str, Any]) -> Any:
    return rule_system(system).bot_action(
        copy.deepcopy(point["view"]), level, memory, copy.deepcopy(point["roller"])
    )


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_no_bot_decides_from_another_bots_private_notes(
    system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    points = decision_points(system, monkeypatch)
    assert len(points) >= 40, "the seeded games reach enough decisions"
    notes_seen = 0
    for n, point in enumerate(points):
        me = point["view"]["me"]["player_id"]
        players = [p["id"] for p in point["view"]["players"]]
        _, others = split(point["memory"], me)
        notes_seen += sum(len(v) for v in others.values())
        for level in LEVELS:
            full = copy.deepcopy(point["memory"])
            action = decide(system, point, level, full)
            mine_after, others_after = split(full, me)
            assert others_after == split(point["memory"], me)[1], (
                f"{system} {level} at decision {n} changed another bot's notes"
            )
            for how in ("removed", "scrambled"):
                memory = with_others(point["memory"], me, players, how, SeededRoller(n))
                assert decide(system, point, level, memory) == action, (
                    f"{system} {level} at decision {n} decided differently with other bots' "
                    f"notes {how}"
                )
                assert split(memory, me)[0] == mine_after, (
                    f"{system} {level} at decision {n} wrote different own or public memory "
                    f"with other bots' notes {how}"
                )
    if system == "poker":
        # the check is only worth something where other bots' notes exist to be read
        assert notes_seen > 50


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_the_engine_hands_each_bot_only_the_public_memory_and_its_own_notes(
    system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert set(rule_system(system).bot_notes) <= set(PER_BOT)
    for n, point in enumerate(decision_points(system, monkeypatch)):
        me = point["view"]["me"]["player_id"]
        mine, _ = split(point["memory"], me)
        handed_mine, handed_others = split(point["handed"], me)
        assert handed_others == {}, f"{system} decision {n}: the bot was handed others' notes"
        assert handed_mine == mine, f"{system} decision {n}: the bot missed its own notes"


def test_every_per_bot_entry_is_declared_by_its_rule_system() -> None:
    declared = {key for system in SYSTEMS for key in rule_system(system).bot_notes}
    assert declared == set(PER_BOT)
