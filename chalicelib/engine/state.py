"""The pieces of a game that rule systems work with: players, bids, reveals, the game in play.

Plain mutable dataclasses with compact ``to_dict``/``from_dict`` encodings for storage (the
room is one DynamoDB item that must stay small: dice are stored as strings such as ``"35*1"``).
Dice are ints 1–6, with ``WILD`` (0) for a ``*`` wildcard. Times are epoch milliseconds.
This module knows no rule system; ``model`` adds the settings and the room around it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Literal, Protocol

Die = int
"""A die: 1–6, or ``WILD`` (0) for ``*``."""

WILD: Final = 0
FACES: Final = (1, 2, 3, 4, 5, 6)
FINAL_REVEAL_MS: Final = 3000
"""The fixed three-second final reveal before results are published."""
MAX_BOTS: Final = 9
BOT_THINK_MS: Final = (1000, 2500)
"""A bot's think time, in ms (lowest, highest): the default pace of a table with humans."""

BotLevel = Literal["easy", "medium", "strong"]
BOT_LEVELS: Final = ("easy", "medium", "strong")
ContinueMode = Literal["auto", "manual"]


class Status(StrEnum):
    """Room lifecycle."""

    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    CLOSED = "closed"


class Phase(StrEnum):
    """Game phases."""

    BIDDING = "bidding"
    """Players bid in turn until someone calls Liar!."""
    BREAK = "break"
    """Between rounds: waits for every remaining participant to agree, or the break deadline."""
    FINAL_REVEAL = "final_reveal"
    """Three seconds to show the deciding reveal before results."""
    FINISHED = "finished"
    """Results are published."""


_DIE_TEXT: Final[dict[int, str]] = {WILD: "*", **{face: str(face) for face in range(1, 7)}}
_TEXT_DIE: Final[dict[str, int]] = {text: die for die, text in _DIE_TEXT.items()}


def encode_dice(dice: list[Die]) -> str:
    """Dice as a compact string: ``[3, 0, 1]`` → ``"3*1"``."""
    try:
        return "".join([_DIE_TEXT[d] for d in dice])
    except KeyError:  # not a die 0-6: as it always was
        return "".join("*" if d == WILD else str(d) for d in dice)


def decode_dice(text: str) -> list[Die]:
    """Inverse of ``encode_dice``."""
    try:
        return [_TEXT_DIE[c] for c in text]
    except KeyError:  # not ``*`` or 1-6: as it always was (``int`` decides)
        return [WILD if c == "*" else int(c) for c in text]


# -- players ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Player:
    """A seat: a human (with a user id) or a bot. Seat order is the order in ``Room.players``."""

    id: str
    name: str
    kind: Literal["human", "bot"]
    user_id: str | None = None
    level: str | None = None
    ready: bool = False
    continue_mode: str = "auto"
    dice_count: int = 0
    hand: list[Die] = field(default_factory=list)
    eliminated: bool = False
    resigned: bool = False
    rank: int | None = None
    moved: bool = False
    """The player made a move of their own this game (not a timeout): see ``ratings``."""

    @property
    def is_bot(self) -> bool:
        """Bots decide from their player view and always agree to the next round."""
        return self.kind == "bot"

    @property
    def in_game(self) -> bool:
        """Still playing: neither eliminated nor resigned."""
        return not (self.eliminated or self.resigned)

    def to_dict(self) -> dict[str, Any]:
        """Compact storage form."""
        d: dict[str, Any] = {"id": self.id, "name": self.name, "kind": self.kind}
        if self.user_id is not None:
            d["uid"] = self.user_id
        if self.level is not None:
            d["lvl"] = self.level
        if self.ready:
            d["rdy"] = 1
        if self.continue_mode != "auto":
            d["cm"] = self.continue_mode
        if self.dice_count:
            d["n"] = self.dice_count
        if self.hand:
            d["h"] = encode_dice(self.hand)
        if self.eliminated:
            d["elim"] = 1
        if self.resigned:
            d["res"] = 1
        if self.rank is not None:
            d["rank"] = self.rank
        if self.moved:
            d["mv"] = 1
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Player:
        """Inverse of ``to_dict``."""
        get = d.get
        # Positional, in field order (id, name, kind, user_id, level, ready, continue_mode,
        # dice_count, hand, eliminated, resigned, rank, moved): read once per seat per request.
        return cls(
            d["id"],
            d["name"],
            d["kind"],
            get("uid"),
            get("lvl"),
            bool(get("rdy", 0)),
            get("cm", "auto"),
            int(get("n", 0)),
            decode_dice(get("h", "")),
            bool(get("elim", 0)),
            bool(get("res", 0)),
            get("rank"),
            bool(get("mv", 0)),
        )


# -- bids and reveals -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bid:
    """A claim that at least ``quantity`` dice show ``face`` or ``*``."""

    player_id: str
    quantity: int
    face: int

    def to_dict(self) -> dict[str, Any]:
        """Public form (API names)."""
        return {"player_id": self.player_id, "quantity": self.quantity, "face": self.face}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Bid:
        """Inverse of ``to_dict``."""
        return cls(d["player_id"], int(d["quantity"]), int(d["face"]))

    def row(self) -> tuple[int, int]:
        """The compact stored form, without the player: ``(quantity, face)``."""
        return (self.quantity, self.face)


class Call(Protocol):
    """What a player said in a round: a ``Bid``, or a rule system's own kind of call.

    Stored as ``to_dict()`` (the current bid, a reveal's bid) and as ``row()`` (the round's
    history, a reveal row's bids); the room's rule system reads them back (``CallReader``).
    """

    @property
    def player_id(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    def row(self) -> tuple[int, ...]: ...


class CallReader(Protocol):
    """How a room's rule system reads its stored calls back, and counts revealed dice."""

    def call_from_dict(self, d: dict[str, Any]) -> Call: ...
    def call_from_row(self, player_id: str, row: list[Any]) -> Call: ...
    def counted(self, bid: Call, dice: list[Die], extra: Mapping[str, Any]) -> list[bool]: ...


@dataclass(slots=True)
class RevealRow:
    """One player's revealed hand in a completed round, with that player's bids in order."""

    player_id: str
    name: str
    dice: list[Die]
    counted: list[bool]
    bids: list[tuple[int, ...]]
    """Each of the player's calls of the round in its stored form (``Call.row()``)."""

    def to_dict(self) -> dict[str, Any]:
        """Compact storage form (``counted`` is recomputed by the rule system when read)."""
        return {
            "p": self.player_id,
            "nm": self.name,
            "d": encode_dice(self.dice),
            "b": [list(b) for b in self.bids],
        }


@dataclass(slots=True)
class Reveal:
    """The outcome of a challenge: the reveal (docs/RULES.md, "Classic")."""

    round: int
    bid: Call
    challenger_id: str
    count: int
    loser_id: str
    winner_id: str
    penalty: str
    eliminated: list[str]
    rows: list[RevealRow]
    final: bool = False
    at: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    """What a rule system adds to its reveals (public once the round is over)."""

    def to_dict(self) -> dict[str, Any]:
        """Compact storage form."""
        return {
            "r": self.round,
            "bid": self.bid.to_dict(),
            "ch": self.challenger_id,
            "c": self.count,
            "lo": self.loser_id,
            "wi": self.winner_id,
            "pen": self.penalty,
            "el": self.eliminated,
            "rows": [row.to_dict() for row in self.rows],
            "fin": int(self.final),
            "at": self.at,
            **({"x": self.extra} if self.extra else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], reader: CallReader) -> Reveal:
        """Inverse of ``to_dict``; ``reader`` is the room's rule system (calls, counting)."""
        bid = reader.call_from_dict(d["bid"])
        extra = dict(d.get("x") or {})
        counted = reader.counted
        rows = []
        for r in d["rows"]:
            dice = decode_dice(r["d"])
            rows.append(
                RevealRow(
                    r["p"],
                    r["nm"],
                    dice,
                    counted(bid, dice, extra),
                    [tuple(map(int, b)) for b in r["b"]],
                )
            )
        return cls(
            int(d["r"]),
            bid,
            d["ch"],
            int(d["c"]),
            d["lo"],
            d["wi"],
            d["pen"],
            list(d["el"]),
            rows,
            bool(d.get("fin", 0)),
            int(d.get("at", 0)),
            extra,
        )


@dataclass(slots=True)
class CompletedRound:
    """A round completed by the transition in progress: its reveal, bids in order, start counts.

    Kept on the room only while the transition's change is being saved (never stored in the
    room item): the service writes one round record from each (``engine.records``).
    ``attempt`` counts the deals of the round number before this one (a resignation mid-round
    deals the round again under the same number). A round a resignation abandoned has no
    ``reveal``: it carries its ``round``, when (``at``) and who resigned (``resigned_id``).
    """

    reveal: Reveal | None
    bids: list[Call]
    counts: list[int]
    attempt: int = 0
    round: int = 0
    at: int = 0
    resigned_id: str | None = None


# -- the game in play -------------------------------------------------------------------------


@dataclass(slots=True)
class Game:
    """State of play. ``round_bids`` is the current round's hidden bid history."""

    round: int = 0
    phase: Phase = Phase.BIDDING
    turn: int = 0
    turn_player: str | None = None
    deadline: int | None = None
    opener: str | None = None
    current_bid: Call | None = None
    round_bids: list[Call] = field(default_factory=list)
    agreed: list[str] = field(default_factory=list)
    last_reveal: Reveal | None = None
    dice_progress: list[list[int]] = field(default_factory=list)
    """One list of dice counts per round (seat order), then the final counts at the end."""
    progress_rounds: list[int] = field(default_factory=list)
    finished_at: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """A rule system's own round state (e.g. Wild Stars' shown dice), stored opaquely."""
    clock: int = 0
    """Table time: the stamp of the latest event (bots' moves may be stamped after ``now``)."""
    pace: tuple[int, int] = BOT_THINK_MS
    """The bots' think time range in ms, fixed when the game starts (server configuration)."""
    attempt: int = 0
    """Deals of this round number before the current one (a resignation mid-round re-deals)."""

    def to_dict(self) -> dict[str, Any]:
        """Compact storage form."""
        d: dict[str, Any] = {}
        if self.clock:
            d["t"] = self.clock
        if self.pace != BOT_THINK_MS:
            d["pc"] = list(self.pace)
        d["round"] = self.round
        d["phase"] = self.phase.value
        d["turn"] = self.turn
        d["tp"] = self.turn_player
        d["dl"] = self.deadline
        d["op"] = self.opener
        d["bid"] = self.current_bid.to_dict() if self.current_bid else None
        d["rb"] = [[b.player_id, *b.row()] for b in self.round_bids]
        d["ag"] = self.agreed
        d["rev"] = self.last_reveal.to_dict() if self.last_reveal else None
        d["dp"] = self.dice_progress
        d["dpr"] = self.progress_rounds
        d["fa"] = self.finished_at
        if self.extra:
            d["x"] = self.extra
        if self.attempt:
            d["ra"] = self.attempt
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], reader: CallReader) -> Game:
        """Inverse of ``to_dict`` (``reader``: see ``Reveal.from_dict``)."""
        from_row = reader.call_from_row
        # Positional, in field order (round, phase, turn, turn_player, deadline, opener,
        # current_bid, round_bids, agreed, last_reveal, dice_progress, progress_rounds,
        # finished_at, extra, clock, pace, attempt).
        return cls(
            int(d["round"]),
            _PHASES.get(d["phase"]) or Phase(d["phase"]),
            int(d["turn"]),
            d["tp"],
            None if d["dl"] is None else int(d["dl"]),
            d["op"],
            reader.call_from_dict(d["bid"]) if d["bid"] else None,
            [from_row(p, rest) for p, *rest in d["rb"]],
            list(d["ag"]),
            Reveal.from_dict(d["rev"], reader) if d["rev"] else None,
            [list(map(int, row)) for row in d["dp"]],
            list(map(int, d.get("dpr", []))),
            d.get("fa"),
            dict(d.get("x") or {}),
            int(d.get("t", 0)),
            (int(d["pc"][0]), int(d["pc"][1])) if "pc" in d else BOT_THINK_MS,
            int(d.get("ra", 0)),
        )


_PHASES: Final[dict[Any, Phase]] = {phase.value: phase for phase in Phase}
