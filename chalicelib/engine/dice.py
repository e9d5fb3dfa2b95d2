"""Randomness as an input: the roller the engine is given.

Production uses ``chalicelib.adapters.dice.SecretsRoller`` (the operating system's
cryptographically secure generator: I/O, so it lives with the adapters). Tests pass a
``ScriptedRoller`` with the exact dice they want; simulations and benchmarks use the
deterministic ``SeededRoller`` so any game can be replayed from its seed and actions.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from .state import WILD, Die


class Roller(Protocol):
    """Where dice and random picks come from."""

    def die(self, wildcard_chance: int) -> Die:
        """One die: ``*`` with ``wildcard_chance`` percent, else a fair 1–6."""
        ...

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (used for the random first opener)."""
        ...


def roll(roller: Roller, count: int, wildcard_chance: int) -> list[Die]:
    """Roll ``count`` dice."""
    return [roller.die(wildcard_chance) for _ in range(count)]


class SeededRoller:
    """Deterministic, fast, *not* secure (splitmix64): for simulations, tests and benchmarks."""

    def __init__(self, seed: int) -> None:
        self._state = seed & 0xFFFFFFFFFFFFFFFF

    def _next(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform pick (modulo bias is negligible at 64 bits)."""
        return self._next() % n

    def die(self, wildcard_chance: int) -> Die:
        """Same distribution as the production ``SecretsRoller``."""
        if wildcard_chance and self.below(100) < wildcard_chance:
            return WILD
        return self.below(6) + 1


class ScriptedRoller:
    """Returns the dice and picks a test scripts, in order; fails loudly when it runs out."""

    def __init__(self, dice: Iterable[Die | str] = (), picks: Iterable[int] = ()) -> None:
        self._dice = [WILD if d == "*" else int(d) for d in dice]
        self._picks = list(picks)

    def add_dice(self, dice: Iterable[Die | str]) -> None:
        """Append dice to the script (e.g. one string per round: ``"35*12"``)."""
        self._dice.extend(WILD if d == "*" else int(d) for d in dice)

    def die(self, wildcard_chance: int) -> Die:
        """Next scripted die."""
        if not self._dice:
            raise AssertionError("ScriptedRoller ran out of dice")
        return self._dice.pop(0)

    def below(self, n: int) -> int:
        """Next scripted pick (0 when none are scripted)."""
        pick = self._picks.pop(0) if self._picks else 0
        if not 0 <= pick < n:
            raise AssertionError(f"scripted pick {pick} out of range 0..{n - 1}")
        return pick
