"""Quick play's matcher: which waiting tickets sit down together, as a pure function.

``plan(waiting, now_ms, policy)`` looks at a snapshot of the waiting tickets and proposes
tables; it reads and writes nothing. The service (``chalicelib.quickplay``) claims each
proposed table with one conditional store write over the tickets it takes, so two workers
that propose overlapping tables from different snapshots cannot both win (docs/ARCHITECTURE.md,
"Quick play"). The plan is deterministic for a snapshot (oldest ticket first,
ties by ticket id), which keeps concurrent workers proposing the same tables.

The rules of the plan:

- A table has the system's usual size (``Policy.size``). A ticket for ``"any"`` system sits at
  a table of any system.
- The oldest waiting ticket anchors a table; it takes the tickets closest to it in rating
  whose difference is within the *band* of either ticket. A ticket's band is
  ``band + band_growth * seconds waited`` (capped at ``band_max``): the longer someone waits,
  the wider the ratings they accept.
- A full table is proposed at once. When the anchor has waited ``wait_ms`` and no full table
  is found, its table is made of the humans that fit plus bots (a level that fits their
  mean rating, ``bot_level``), so nobody waits for long.
- Tickets of a *group* (the players of a finished quick-play table who all pressed "Play
  again") sit together and with nobody else: as soon as every member is waiting, or when the
  group's first ticket has waited ``wait_ms`` (with the members present, plus bots).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

ANY: Final = "any"
"""The ``rules`` of a ticket that takes a table of any system."""

DEFAULT_TABLE_SIZE: Final = 4
"""Seats of a quick-play table of a system the policy gives no size (each rule system
declares its own, ``quickplay_seats``)."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """A waiting ticket as the matcher sees it."""

    ticket_id: str
    user_id: str
    rules: str
    """A system's name or ``ANY``."""
    since_ms: int
    rating: float
    group: str | None = None
    """The play-again group (the finished room's id), or None."""
    group_size: int = 0
    """How many humans the group has (all of them waiting completes it)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """How long people wait and how close their ratings must be."""

    wait_ms: int = 20_000
    band: float = 100.0
    band_growth_per_s: float = 25.0
    band_max: float = 1000.0
    sizes: Mapping[str, int] = field(default_factory=dict)
    """Seats of a table by system (others: ``default_size``)."""
    default_size: int = DEFAULT_TABLE_SIZE
    systems: tuple[str, ...] = ()
    """The systems a ticket for ``ANY`` may be seated at, in order of preference (the first
    also seats a group of ``ANY`` tickets)."""

    def size(self, rules: str) -> int:
        """The seats of a table of ``rules``."""
        return self.sizes.get(rules, self.default_size)

    def band_of(self, ticket: Waiting, now_ms: int) -> float:
        """The rating difference ``ticket`` accepts after waiting until ``now_ms``."""
        waited_s = max(0, now_ms - ticket.since_ms) / 1000
        return min(self.band_max, self.band + self.band_growth_per_s * waited_s)

    def expired(self, ticket: Waiting, now_ms: int) -> bool:
        """Whether ``ticket`` has waited long enough to be seated with bots."""
        return now_ms - ticket.since_ms >= self.wait_ms


@dataclass(frozen=True, slots=True)
class Table:
    """A proposed table: its system, the tickets seated (in seat order) and the bots added."""

    rules: str
    tickets: tuple[Waiting, ...]
    bots: int
    bot_level: str


def bot_level(ratings: Iterable[float]) -> str:
    """The bot level that fits the mean rating of the humans at a table."""
    values = list(ratings)
    mean = sum(values) / len(values) if values else 1500.0
    if mean < 1400:
        return "easy"
    if mean < 1600:
        return "medium"
    return "strong"


def _order(tickets: Iterable[Waiting]) -> list[Waiting]:
    return sorted(tickets, key=lambda t: (t.since_ms, t.ticket_id))


def _table(rules: str, seated: Sequence[Waiting], size: int) -> Table:
    seated = tuple(_order(seated))
    return Table(rules, seated, max(0, size - len(seated)), bot_level(t.rating for t in seated))


def _fits(anchor: Waiting, other: Waiting, rules: str, now_ms: int, policy: Policy) -> bool:
    if other.rules not in (rules, ANY):
        return False
    diff = abs(other.rating - anchor.rating)
    return diff <= max(policy.band_of(anchor, now_ms), policy.band_of(other, now_ms))


def _groups(waiting: Sequence[Waiting], now_ms: int, policy: Policy) -> list[Table]:
    members: dict[str, list[Waiting]] = {}
    for t in waiting:
        if t.group is not None:
            members.setdefault(t.group, []).append(t)
    tables = []
    for group in sorted(members, key=lambda g: (_order(members[g])[0].since_ms, g)):
        present = _order(members[group])
        first = present[0]
        rules = first.rules if first.rules != ANY else _first_system(policy, present)
        complete = len(present) >= max(1, first.group_size)
        if rules != ANY and (complete or policy.expired(first, now_ms)):
            size = max(policy.size(rules), len(present))
            tables.append(_table(rules, present, size))
    return tables


def _first_system(policy: Policy, tickets: Sequence[Waiting]) -> str:
    for t in tickets:
        if t.rules != ANY:
            return t.rules
    return policy.systems[0] if policy.systems else ANY


def plan(waiting: Sequence[Waiting], now_ms: int, policy: Policy) -> list[Table]:
    """The tables to make now from the ``waiting`` tickets (each ticket in at most one).

    A ticket that appears twice (by id) counts once; a user with two tickets (which the store
    never holds) is seated at most once.
    """
    unique = {t.ticket_id: t for t in waiting}
    seen_users: set[str] = set()
    pool: list[Waiting] = []
    for t in _order(unique.values()):
        if t.user_id not in seen_users:
            seen_users.add(t.user_id)
            pool.append(t)
    tables = _groups([t for t in pool if t.group is not None], now_ms, policy)
    taken = {t.ticket_id for table in tables for t in table.tickets}
    free = [t for t in pool if t.group is None]
    for anchor in free:
        if anchor.ticket_id in taken:
            continue
        systems = _systems_for(anchor, policy)
        best: tuple[str, list[Waiting]] | None = None
        for rules in systems:
            size = policy.size(rules)
            fitting = [
                t
                for t in free
                if t.ticket_id not in taken
                and t.ticket_id != anchor.ticket_id
                and _fits(anchor, t, rules, now_ms, policy)
            ]
            fitting.sort(key=lambda t: (abs(t.rating - anchor.rating), t.since_ms, t.ticket_id))
            chosen = fitting[: size - 1]
            if len(chosen) == size - 1:
                best = (rules, chosen)
                break
            if best is None or len(chosen) > len(best[1]):
                best = (rules, chosen)
        if best is None:
            continue  # a ticket for any system, and the policy knows none
        rules, chosen = best
        full = len(chosen) == policy.size(rules) - 1
        if full or policy.expired(anchor, now_ms):
            table = _table(rules, [anchor, *chosen], policy.size(rules))
            tables.append(table)
            taken.update(t.ticket_id for t in table.tickets)
    return tables


def _systems_for(ticket: Waiting, policy: Policy) -> tuple[str, ...]:
    return (ticket.rules,) if ticket.rules != ANY else policy.systems


def next_wake_ms(waiting: Iterable[Waiting], policy: Policy) -> int | None:
    """When the oldest waiting ticket is due a table with bots (None when nobody waits)."""
    times = [t.since_ms + policy.wait_ms for t in waiting]
    return min(times) if times else None
