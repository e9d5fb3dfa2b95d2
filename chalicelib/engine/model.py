"""The game's data: settings, players, bids, reveals, the game in play and the room around it.

Plain mutable dataclasses with compact ``to_dict``/``from_dict`` encodings for storage (the
room is one DynamoDB item that must stay small: dice are stored as strings such as ``"35*1"``).
Dice are ints 1–6, with ``WILD`` (0) for a ``*`` wildcard. Times are epoch milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Final, Literal

from .errors import InvalidSetting

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


def encode_dice(dice: list[Die]) -> str:
    """Dice as a compact string: ``[3, 0, 1]`` → ``"3*1"``."""
    return "".join("*" if d == WILD else str(d) for d in dice)


def decode_dice(text: str) -> list[Die]:
    """Inverse of ``encode_dice``."""
    return [WILD if c == "*" else int(c) for c in text]


# -- settings ---------------------------------------------------------------------------------

SETTING_CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "starting_dice": tuple(range(1, 11)),
    "wildcard_chance": (0, 5, 10),
    "penalty": ("discard", "give"),
    "turn_seconds": (15, 30, 60),
    "break_seconds": (30, 60, 120),
    "joining": ("open", "approval", "passcode"),
    "rules": ("classic", "wild-stars", "poker"),
    "lives": (1, 2, 3, 4, 5),
    "dogs_life": (False, True),
}


@dataclass(frozen=True, slots=True)
class Settings:
    """Room settings (SPEC §2). Construct through ``Settings.parse`` to validate."""

    starting_dice: int = 5
    wildcard_chance: int = 10
    penalty: str = "discard"
    turn_seconds: int = 30
    break_seconds: int = 60
    joining: str = "open"
    passcode: str | None = None
    rules: str = "classic"
    lives: int = 3
    """Poker Liar Dice: lives per player (held in ``Player.dice_count``)."""
    dogs_life: bool = False
    """Poker Liar Dice: the first player to lose their last life gets one extra life."""

    @classmethod
    def parse(cls, data: dict[str, Any], base: Settings | None = None) -> Settings:
        """Validate a (partial) settings dict over ``base``; refuse unknown fields and values."""
        base = base or cls()
        current = {f.name: getattr(base, f.name) for f in fields(base)}
        for name, value in data.items():
            if name not in current:
                raise InvalidSetting(f"unknown setting {name!r}", field=name)
            if name == "passcode":
                if value is not None and not (
                    isinstance(value, str)
                    and len(value) == 4
                    and value.isascii()
                    and value.isdigit()
                ):
                    raise InvalidSetting("passcode must be exactly four digits", field="passcode")
            else:
                allowed = SETTING_CHOICES[name]
                # bool is an int in Python: True must not pass as 1 (nor 1 as True)
                if isinstance(value, bool) != isinstance(allowed[0], bool) or value not in allowed:
                    shown = ", ".join(str(a) for a in allowed)
                    raise InvalidSetting(f"{name} must be one of: {shown}", field=name)
            current[name] = value
        if current["joining"] == "passcode" and current["passcode"] is None:
            raise InvalidSetting(
                "joining by passcode needs a four-digit passcode", field="passcode"
            )
        return cls(**current)

    def to_dict(self) -> dict[str, Any]:
        """All settings as a plain dict (passcode included: the view decides who sees it).

        The poker settings appear only in poker rooms (or when changed from their defaults),
        so classic and Wild Stars rooms look exactly as they did before poker existed.
        """
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.rules != "poker":
            for name, default in (("lives", 3), ("dogs_life", False)):
                if out[name] == default:
                    del out[name]
        return out


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
        return cls(
            id=d["id"],
            name=d["name"],
            kind=d["kind"],
            user_id=d.get("uid"),
            level=d.get("lvl"),
            ready=bool(d.get("rdy", 0)),
            continue_mode=d.get("cm", "auto"),
            dice_count=int(d.get("n", 0)),
            hand=decode_dice(d.get("h", "")),
            eliminated=bool(d.get("elim", 0)),
            resigned=bool(d.get("res", 0)),
            rank=d.get("rank"),
            moved=bool(d.get("mv", 0)),
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


@dataclass(slots=True)
class RevealRow:
    """One player's revealed hand in a completed round, with that player's bids in order."""

    player_id: str
    name: str
    dice: list[Die]
    counted: list[bool]
    bids: list[tuple[int, int]]

    def to_dict(self) -> dict[str, Any]:
        """Compact storage form (``counted`` is recomputed from dice and bid face)."""
        return {
            "p": self.player_id,
            "nm": self.name,
            "d": encode_dice(self.dice),
            "b": [list(b) for b in self.bids],
        }


@dataclass(slots=True)
class Reveal:
    """The outcome of a challenge: SPEC §3 'Reveal'."""

    round: int
    bid: Bid
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
    def from_dict(cls, d: dict[str, Any]) -> Reveal:
        """Inverse of ``to_dict``."""
        bid = Bid.from_dict(d["bid"])
        rows = []
        for r in d["rows"]:
            dice = decode_dice(r["d"])
            rows.append(
                RevealRow(
                    r["p"],
                    r["nm"],
                    dice,
                    [x == bid.face or x == WILD for x in dice],
                    [(int(q), int(f)) for q, f in r["b"]],
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
            dict(d.get("x") or {}),
        )


@dataclass(slots=True)
class CompletedRound:
    """A round completed by the transition in progress: its reveal, bids in order, start counts.

    Kept on the room only while the transition's change is being saved (never stored in the
    room item): the service writes one round record from each (``engine.records``).
    """

    reveal: Reveal
    bids: list[Bid]
    counts: list[int]


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
    current_bid: Bid | None = None
    round_bids: list[Bid] = field(default_factory=list)
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

    def to_dict(self) -> dict[str, Any]:
        """Compact storage form."""
        return {
            **({"t": self.clock} if self.clock else {}),
            **({"pc": list(self.pace)} if self.pace != BOT_THINK_MS else {}),
            "round": self.round,
            "phase": self.phase.value,
            "turn": self.turn,
            "tp": self.turn_player,
            "dl": self.deadline,
            "op": self.opener,
            "bid": self.current_bid.to_dict() if self.current_bid else None,
            "rb": [[b.player_id, b.quantity, b.face] for b in self.round_bids],
            "ag": self.agreed,
            "rev": self.last_reveal.to_dict() if self.last_reveal else None,
            "dp": self.dice_progress,
            "dpr": self.progress_rounds,
            "fa": self.finished_at,
            **({"x": self.extra} if self.extra else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """Inverse of ``to_dict``."""
        return cls(
            round=int(d["round"]),
            phase=Phase(d["phase"]),
            turn=int(d["turn"]),
            turn_player=d["tp"],
            deadline=None if d["dl"] is None else int(d["dl"]),
            opener=d["op"],
            current_bid=Bid.from_dict(d["bid"]) if d["bid"] else None,
            round_bids=[Bid(p, int(q), int(f)) for p, q, f in d["rb"]],
            agreed=list(d["ag"]),
            last_reveal=Reveal.from_dict(d["rev"]) if d["rev"] else None,
            dice_progress=[[int(x) for x in row] for row in d["dp"]],
            progress_rounds=[int(x) for x in d.get("dpr", [])],
            finished_at=d.get("fa"),
            extra=dict(d.get("x") or {}),
            clock=int(d.get("t", 0)),
            pace=(int(d["pc"][0]), int(d["pc"][1])) if "pc" in d else BOT_THINK_MS,
        )


# -- the room ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Room:
    """A room: lobby (seats, requests, invitations) and, once started, its game and results."""

    id: str
    host_id: str
    created_by_guest: bool
    created_at: int
    settings: Settings = field(default_factory=Settings)
    status: Status = Status.WAITING
    players: list[Player] = field(default_factory=list)
    next_player_no: int = 1
    pending: list[dict[str, str]] = field(default_factory=list)
    """Join requests awaiting the host (approval mode): ``{"user_id", "name"}``."""
    denied: list[str] = field(default_factory=list)
    invited: list[str] = field(default_factory=list)
    """User ids the host invited (join without approval or passcode while waiting)."""
    game: Game | None = None
    results: dict[str, Any] | None = None
    """Set by the service when a game finishes: ranking with ratings, and the game's Elo record."""
    rated: bool = False
    recreated_as: str | None = None
    recreated_from: str | None = None
    lineage: str | None = None
    """The first room of a chain of recreations (None: this room is the first)."""
    bot_memory: dict[str, Any] = field(default_factory=dict)
    """What bots learned from completed, public reveals (opponent tendencies)."""
    completed: list[CompletedRound] = field(default_factory=list, compare=False, repr=False)
    """Rounds completed since this object was loaded (transient: not in ``to_dict``)."""

    def player(self, player_id: str) -> Player | None:
        """The seat with this player id."""
        for p in self.players:
            if p.id == player_id:
                return p
        return None

    def player_of_user(self, user_id: str | None) -> Player | None:
        """The seat held by this user, if any (one account, one seat)."""
        if user_id is None:
            return None
        for p in self.players:
            if p.user_id == user_id:
                return p
        return None

    @property
    def host(self) -> Player | None:
        """The host's seat."""
        return self.player(self.host_id)

    def to_dict(self) -> dict[str, Any]:
        """Storage form: what the room item holds."""
        return {
            "id": self.id,
            "host": self.host_id,
            "guest": int(self.created_by_guest),
            "created": self.created_at,
            "settings": self.settings.to_dict(),
            "status": self.status.value,
            "players": [p.to_dict() for p in self.players],
            "npn": self.next_player_no,
            "pending": self.pending,
            "denied": self.denied,
            "invited": self.invited,
            "game": self.game.to_dict() if self.game else None,
            "results": self.results,
            "rated": int(self.rated),
            "recreated_as": self.recreated_as,
            "recreated_from": self.recreated_from,
            "bm": self.bot_memory,
            **({"lin": self.lineage} if self.lineage else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Room:
        """Inverse of ``to_dict``."""
        return cls(
            id=d["id"],
            host_id=d["host"],
            created_by_guest=bool(d["guest"]),
            created_at=int(d["created"]),
            settings=Settings(**d["settings"]),
            status=Status(d["status"]),
            players=[Player.from_dict(p) for p in d["players"]],
            next_player_no=int(d["npn"]),
            pending=list(d["pending"]),
            denied=list(d["denied"]),
            invited=list(d["invited"]),
            game=Game.from_dict(d["game"]) if d["game"] else None,
            results=d.get("results"),
            rated=bool(d.get("rated", 0)),
            recreated_as=d.get("recreated_as"),
            recreated_from=d.get("recreated_from"),
            bot_memory=d.get("bm") or {},
            lineage=d.get("lin"),
        )
