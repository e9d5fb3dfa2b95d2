"""The room: its settings, seats, game in play and results, and their storage encoding.

The pieces a rule system works with (players, bids, reveals, the game in play) are in
``state`` and re-exported here. Which rule systems exist, and which settings each of them
owns, comes from the registry (``systems``): this module names none of them.
Plain mutable dataclasses with compact ``to_dict``/``from_dict`` encodings for storage (the
room is one DynamoDB item that must stay small). Times are epoch milliseconds.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, fields
from typing import Any, Final

from .errors import InvalidSetting
from .state import (
    BOT_LEVELS,
    BOT_THINK_MS,
    FACES,
    FINAL_REVEAL_MS,
    MAX_BOTS,
    WILD,
    Bid,
    BotLevel,
    Call,
    CallReader,
    CompletedRound,
    ContinueMode,
    Die,
    Game,
    Phase,
    Player,
    Reveal,
    RevealRow,
    Status,
    decode_dice,
    encode_dice,
)
from .systems import DEFAULT_RULES, SYSTEMS, rule_system

__all__ = [
    "BOT_LEVELS",
    "BOT_THINK_MS",
    "CORRESPONDENCE_TURN_SECONDS",
    "FACES",
    "FINAL_REVEAL_MS",
    "LIVE_TURN_SECONDS",
    "MAX_BOTS",
    "SETTING_CHOICES",
    "TURN_SECONDS_BY_PACE",
    "WILD",
    "Bid",
    "BotLevel",
    "Call",
    "CallReader",
    "CompletedRound",
    "ContinueMode",
    "Die",
    "Game",
    "Phase",
    "Player",
    "Reveal",
    "RevealRow",
    "Room",
    "Settings",
    "Status",
    "decode_dice",
    "encode_dice",
]

# -- settings ---------------------------------------------------------------------------------

LIVE_TURN_SECONDS: Final = (15, 30, 60)
"""Turn times of a live room (seconds)."""
CORRESPONDENCE_TURN_SECONDS: Final = (3600, 43200, 86400, 259200)
"""Turn times of a correspondence room: 1 h, 12 h, 24 h, 72 h."""
TURN_SECONDS_BY_PACE: Final[dict[str, tuple[int, ...]]] = {
    "live": LIVE_TURN_SECONDS,
    "correspondence": CORRESPONDENCE_TURN_SECONDS,
}
DEFAULT_TURN_SECONDS: Final[dict[str, int]] = {"live": 30, "correspondence": 86400}
"""The turn time a room takes when its pace changes and no turn time is given with it."""

SHARED_SETTING_CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "starting_dice": tuple(range(1, 11)),
    "wildcard_chance": (0, 5, 10),
    "penalty": ("discard", "give"),
    "pace": tuple(TURN_SECONDS_BY_PACE),
    "turn_seconds": LIVE_TURN_SECONDS + CORRESPONDENCE_TURN_SECONDS,
    "break_seconds": (30, 60, 120),
    "joining": ("open", "approval", "passcode"),
}
"""The choices of the settings every room has (the passcode is checked on its own)."""

SYSTEM_SETTINGS: Final[dict[str, tuple[str, ...]]] = {
    name: tuple(system.setting_choices) for name, system in SYSTEMS.items()
}
"""The settings each rule system owns (declared by the system), by system name."""

OPTION_DEFAULTS: Final[dict[str, Any]] = {
    name: value for s in SYSTEMS.values() for name, value in s.setting_defaults.items()
}
"""Every rule system's own settings (its options) and their defaults, in registry order."""

SETTING_CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    **SHARED_SETTING_CHOICES,
    "rules": tuple(SYSTEMS),
    **{name: choices for s in SYSTEMS.values() for name, choices in s.setting_choices.items()},
}
"""Every setting's allowed values: the shared ones, the rule systems, each system's own."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Room settings (docs/API.md, "Settings"). Construct through ``Settings.parse`` to validate."""

    starting_dice: int = 5
    wildcard_chance: int = 10
    penalty: str = "discard"
    turn_seconds: int = 30
    break_seconds: int = 60
    joining: str = "open"
    passcode: str | None = None
    rules: str = DEFAULT_RULES
    pace: str = "live"
    """``live`` (turns of seconds) or ``correspondence`` (turns of hours, docs/API.md)."""
    options: tuple[tuple[str, Any], ...] = ()
    """The rule systems' own settings (``RuleSystem.setting_defaults``: Poker's ``lives`` and
    ``dogs_life``) that differ from their defaults, in registry order; read with ``option``."""

    @classmethod
    def of(cls, **values: Any) -> Settings:
        """Settings from every setting by name, shared or a system's own (``Settings.of(lives=2)``)."""
        shared = {name: values.pop(name) for name in _NAMES if name in values}
        for name in values:
            if name not in OPTION_DEFAULTS:
                raise TypeError(f"unknown setting {name!r}")
        options = tuple(
            (name, values[name])
            for name, default in OPTION_DEFAULTS.items()
            if name in values and not _same(values[name], default)
        )
        return cls(**shared, options=options)

    @property
    def break_ms(self) -> int:
        """How long the break after a reveal lasts at most: one turn length in correspondence."""
        if self.pace == "correspondence":
            return self.turn_seconds * 1000
        return self.break_seconds * 1000

    def option(self, name: str) -> Any:
        """A rule system's own setting (its default unless the room chose another value)."""
        for key, value in self.options:
            if key == name:
                return value
        return OPTION_DEFAULTS[name]

    def _all(self) -> dict[str, Any]:
        """Every setting by name: the shared ones, then every system's own."""
        out = dict(zip(_NAMES, _VALUES(self), strict=True))
        out.update(OPTION_DEFAULTS)
        out.update(self.options)
        return out

    @classmethod
    def parse(cls, data: dict[str, Any], base: Settings | None = None) -> Settings:
        """Validate a (partial) settings dict over ``base``; refuse unknown fields and values."""
        base = base or cls()
        current = base._all()
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
        _fit_turn_to_pace(current, data)
        if current["joining"] == "passcode" and current["passcode"] is None:
            raise InvalidSetting(
                "joining by passcode needs a four-digit passcode", field="passcode"
            )
        return cls.of(**current)

    def to_dict(self) -> dict[str, Any]:
        """All settings as a plain dict (passcode included: the view decides who sees it).

        A setting a rule system owns appears only in rooms of that system (or when set to a
        value other than its default), so other rooms look as they did before that system.
        ``pace`` likewise appears only when it is not ``live``: a live room is stored as it was
        before paces existed (views show the pace always, ``public``).
        """
        out = self._all()
        own = SYSTEM_SETTINGS.get(self.rules, ())
        for name, default in OPTION_DEFAULTS.items():
            if name not in own and _same(out[name], default):
                del out[name]
        if out["pace"] == "live":
            del out["pace"]
        return out

    def public(self) -> dict[str, Any]:
        """The settings as views and lists show them: ``to_dict`` with the pace always."""
        out = self.to_dict()
        out["pace"] = self.pace
        return out

    @classmethod
    def stored(cls, d: dict[str, Any]) -> Settings:
        """``Settings.of(**d)`` for a stored settings dict, shared by every room stored alike.

        Settings are immutable, so rooms read with the same stored settings (and types) can
        share one object; the constructor runs on the first of them only.
        """
        key = tuple((name, value.__class__, value) for name, value in d.items())
        try:
            return _STORED[key]
        except (KeyError, TypeError):  # TypeError: an unhashable value (the constructor tells)
            pass
        settings = cls.of(**d)
        if len(_STORED) >= 1024:
            _STORED.clear()
        _STORED[key] = settings
        return settings


def _fit_turn_to_pace(current: dict[str, Any], data: dict[str, Any]) -> None:
    """A pace change without a turn time takes the pace's default; a mismatch is refused."""
    allowed = TURN_SECONDS_BY_PACE[current["pace"]]
    if current["turn_seconds"] in allowed:
        return
    if "pace" in data and "turn_seconds" not in data:
        current["turn_seconds"] = DEFAULT_TURN_SECONDS[current["pace"]]
        return
    shown = ", ".join(str(a) for a in allowed)
    raise InvalidSetting(
        f"turn_seconds must be one of: {shown} (pace {current['pace']})", field="turn_seconds"
    )


_NAMES: Final = tuple(f.name for f in fields(Settings) if f.name != "options")
_VALUES: Final = operator.attrgetter(*_NAMES)
_STORED: dict[tuple[tuple[str, type, Any], ...], Settings] = {}


def _same(value: Any, default: Any) -> bool:
    """Equal and of one type (``True`` is not the default ``1``, nor ``1`` the default ``True``)."""
    return bool(value == default and type(value) is type(default))


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
    quickplay: bool = False
    """A quick-play table (made by the matcher): closed to joins, seated players need no ready."""
    starts_at: int | None = None
    """Quick play: when the first round begins (the end of the countdown), epoch ms."""
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

    def in_game(self) -> list[Player]:
        """Players still in the game, in seat order."""
        return [p for p in self.players if p.in_game]

    def next_clockwise(self, player_id: str) -> Player:
        """The next player after ``player_id`` (who may be out) who is still in the game."""
        players = self.players
        n = len(players)
        start = next(i for i, p in enumerate(players) if p.id == player_id)
        for step in range(1, n + 1):
            p = players[(start + step) % n]
            if p.in_game:
                return p
        raise AssertionError("no player left in the game")

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
            **({"qp": self.starts_at or 0} if self.quickplay else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Room:
        """Inverse of ``to_dict``."""
        settings = Settings.stored(d["settings"])
        return cls(
            id=d["id"],
            host_id=d["host"],
            created_by_guest=bool(d["guest"]),
            created_at=int(d["created"]),
            settings=settings,
            status=_STATUSES.get(d["status"]) or Status(d["status"]),
            players=[Player.from_dict(p) for p in d["players"]],
            next_player_no=int(d["npn"]),
            pending=list(d["pending"]),
            denied=list(d["denied"]),
            invited=list(d["invited"]),
            game=Game.from_dict(d["game"], rule_system(settings.rules)) if d["game"] else None,
            results=d.get("results"),
            rated=bool(d.get("rated", 0)),
            recreated_as=d.get("recreated_as"),
            recreated_from=d.get("recreated_from"),
            bot_memory=d.get("bm") or {},
            lineage=d.get("lin"),
            quickplay="qp" in d,
            starts_at=d.get("qp") or None,
        )


_STATUSES: Final[dict[Any, Status]] = {status.value: status for status in Status}
