"""Pydantic request and response models of the REST API, and the OpenAPI 3.1 document built from them.

Why it is over 600 lines: it is the published REST contract in one place, one short model per
request and answer (about 80 of them, each a few lines), which the OpenAPI document, the route
table of ``app.py`` and the test of every answer (``tests/contract_check.py``) read together;
the logic is only ``_composed`` and ``openapi_document``. Splitting it by area (accounts, rooms,
quick play, pushes) is the natural next step once this round's features, which each add their
models here, have landed.

Request models are strict and refuse unknown fields, so nothing a client sends is ever bound
to state it does not own (no mass assignment of host, dice, version or rating). Response
models describe what the routes return (the room view is built by ``engine.views``; the
models document it and allow fields to be added). ``ROUTES`` is filled by ``app.py``'s route
decorator; ``openapi_document()`` turns it into the published document.

What a rule system adds (its settings, the extras of its table, reveal and bids, its events)
is declared in its package (``engine.systems.<name>.wire``, ``…events``) and composed here
from the registry (``_composed``): this module names no rule system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, cast, get_args

from pydantic import BaseModel, ConfigDict, Field, RootModel, create_model
from pydantic.json_schema import models_json_schema

from chalicelib.engine import events as engine_events
from chalicelib.engine.actions import SHARED_FLOW_BODIES, WholeNumber
from chalicelib.engine.systems import ACTION_BODIES, SYSTEMS
from chalicelib.engine.wire_models import (
    Answer,
    By,
    DieOut,
    EventOut,
    FaceOut,
    FieldSpec,
    Stamp,
    SystemWire,
    event_model,
)

__all__ = ["Answer", "By", "DieOut", "FaceOut", "Stamp"]

MAX_BODY_BYTES = 16 * 1024
"""Bodies above this size are refused with 413 before parsing."""


class Request(BaseModel):
    """Base of request bodies: strict types, unknown fields refused."""

    # defer_build: the validator is built on the model's first use, not by ``import app``
    # (cold start, bench/coldstart.py); validation is the same
    model_config = ConfigDict(strict=True, extra="forbid", defer_build=True)


def _composed(
    base: type[BaseModel], part: Callable[[SystemWire], Mapping[str, FieldSpec]]
) -> type[BaseModel]:
    """``base`` with every registered system's fields of ``part`` (registry order, each once)."""
    extras: dict[str, FieldSpec] = {}
    for system in SYSTEMS.values():
        for name, spec in part(system.wire).items():
            if extras.setdefault(name, spec) != spec:
                raise ValueError(f"{system.name} declares {name!r} unlike another system")
    model: type[BaseModel] = create_model(base.__name__, __base__=base, **extras)  # type: ignore[call-overload]
    return model


Username = Annotated[str, Field(min_length=3, max_length=24, pattern=r"^[A-Za-z0-9_-]+$")]
Password = Annotated[str, Field(min_length=8, max_length=128)]
DisplayName = Annotated[str, Field(min_length=1, max_length=24)]
Id = Annotated[str, Field(min_length=1, max_length=64)]
Passcode = Annotated[str, Field(pattern=r"^[0-9]{4}$")]
ContinueMode = Literal["auto", "manual"]
Language = Literal["en", "es", "pt-BR"]
IsoTime = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
"""A time on the wire: ISO 8601 UTC with milliseconds and ``Z``."""
Penalty = Literal["discard", "give"]
Joining = Literal["open", "approval", "passcode"]
RoomStatus = Literal["waiting", "playing", "finished", "closed"]
BotLevel = Literal["easy", "medium", "strong"]


if TYPE_CHECKING:
    Rules = str
else:
    Rules = Literal[tuple(SYSTEMS)]
    """The rule systems: the registry's names (``engine.systems.SYSTEMS``)."""


# --- requests ----------------------------------------------------------------------------


class GuestBody(Request):
    """POST /auth/guest."""

    name: DisplayName | None = None


class Credentials(Request):
    """POST /auth/register and /auth/login."""

    username: Username
    password: Password


class LoginBody(Request):
    """POST /auth/login: no password policy here, so a wrong password is 401 at any length."""

    username: Annotated[str, Field(min_length=1, max_length=64)]
    password: Annotated[str, Field(max_length=1024)]


class PreferencesBody(Request):
    """PATCH /me/preferences: what is given changes (at least one of ``continue_mode`` and
    ``language``); ``room_id`` (optional) also applies the mode in that room now."""

    continue_mode: ContinueMode | None = None
    language: Language | None = Field(
        default=None, description="The interface language remembered for the user."
    )
    room_id: Id | None = None


class _SharedSettingsBody(Request):
    starting_dice: Annotated[Literal[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], WholeNumber] | None = None
    wildcard_chance: Annotated[Literal[0, 5, 10], WholeNumber] | None = None
    penalty: Literal["discard", "give"] | None = None
    turn_seconds: Annotated[Literal[15, 30, 60, 3600, 43200, 86400, 259200], WholeNumber] | None = (
        Field(
            default=None,
            description="15, 30 or 60 in a live room; 3600, 43200, 86400 or 259200 (1 h, 12 h, "
            "24 h, 72 h) in a correspondence room. A pace change without it takes 30 or 86400.",
        )
    )
    break_seconds: Annotated[Literal[30, 60, 120], WholeNumber] | None = None
    pace: Literal["live", "correspondence"] | None = Field(
        default=None,
        description="live (turns of seconds) or correspondence (turns of hours; the break "
        "after a reveal lasts until all agree or one turn length).",
    )
    joining: Literal["open", "approval", "passcode"] | None = None
    passcode: Passcode | None = None
    rules: Rules | None = None


class SettingsBody(_composed(_SharedSettingsBody, lambda w: w.settings_body)):  # type: ignore[misc]
    """Room settings (docs/API.md, "Settings"); every field optional (partial edits)."""

    def changes(self) -> dict[str, Any]:
        """Only the fields the client sent."""
        return cast(dict[str, Any], self.model_dump(exclude_unset=True))


class CreateRoomBody(Request):
    """POST /rooms."""

    settings: SettingsBody | None = None


class JoinBody(Request):
    """POST /rooms/{room_id}/join."""

    passcode: Passcode | None = None
    """Four digits; anything else is refused (400) before it can count as an attempt."""


class ReadyBody(Request):
    """PUT /rooms/{room_id}/ready."""

    ready: bool


class InviteBody(Request):
    """POST /rooms/{room_id}/invitations."""

    username: Annotated[str, Field(min_length=1, max_length=64)]


class AddBotBody(Request):
    """POST /rooms/{room_id}/bots."""

    level: Literal["easy", "medium", "strong"] | None = None


_ActionUnion = Annotated[
    Union[(*ACTION_BODIES, *SHARED_FLOW_BODIES)],  # type: ignore[valid-type]
    Field(discriminator="type"),
]
"""Every rule system's turn actions (declared by each system), then ``agree`` and ``resign``."""


class ActionBody(RootModel[_ActionUnion]):
    """POST /rooms/{room_id}/actions."""

    model_config = ConfigDict(defer_build=True)  # as ``Request``: built on first use


class ChatBody(Request):
    """POST /rooms/{room_id}/chat (the operator's length cap applies too)."""

    text: Annotated[
        str,
        Field(
            min_length=1,
            max_length=2000,
            # published: the default operator cap (CHAT_MAX_LENGTH), which the server applies
            json_schema_extra={"maxLength": 500},
        ),
    ]


class EloPreviewBody(Request):
    """POST /rooms/{room_id}/elo-preview: a complete finishing order of player ids."""

    order: Annotated[list[Id], Field(max_length=200)]


# --- responses ---------------------------------------------------------------------------


class ErrorDetail(Answer):
    """What went wrong."""

    code: str
    message: str
    field: str | None = None


class ErrorBody(Answer):
    """Every 4xx answer; 409 on a room also carries ``room`` (the caller's view now)."""

    error: ErrorDetail
    room: RoomView | None = None


class UserOut(Answer):
    """A user as the API shows it."""

    id: str
    name: str
    guest: bool


class AuthAnswer(Answer):
    """A signed-in session."""

    token: str
    user: UserOut


class Preferences(Answer):
    """A user's preferences."""

    continue_mode: ContinueMode
    language: Language | None = Field(
        description="The interface language the user chose; null if never chosen."
    )


class Invitation(Answer):
    """An invitation to a room."""

    room_id: str
    host_name: str


class MeAnswer(Answer):
    """GET /me."""

    user: UserOut
    rating: dict[str, float] | None
    preferences: Preferences
    invitations: list[Invitation]


class PreferencesAnswer(Answer):
    """PATCH /me/preferences."""

    preferences: Preferences


# --- correspondence, my games and notifications (docs/API.md) -----------------------------


class GameEntry(Answer):
    """One open room of the caller in GET /me/games."""

    room_id: str
    rules: str
    status: Literal["waiting", "playing"]
    pace: Literal["live", "correspondence"]
    my_turn: bool = Field(
        description="The caller is to move (or, between rounds, to agree to go on)."
    )
    deadline: str | None
    turn_player_id: str | None
    updated_at: str


class MyGamesAnswer(Answer):
    """GET /me/games: the caller's waiting and playing rooms, theirs to move first."""

    games: list[GameEntry]


class VapidKeyAnswer(Answer):
    """GET /push/vapid-public-key."""

    key: str = Field(description="base64url of the uncompressed P-256 point (65 bytes)")


class PushKeys(Request):
    """A PushSubscription's keys (base64url)."""

    p256dh: Annotated[str, Field(min_length=1, max_length=200)]
    auth: Annotated[str, Field(min_length=1, max_length=100)]


class PushSubscriptionBody(Request):
    """POST /me/push-subscriptions: the browser's ``PushSubscription.toJSON()``."""

    endpoint: Annotated[str, Field(min_length=1, max_length=2048)]
    expirationTime: int | None = None
    keys: PushKeys


class PushEndpointBody(Request):
    """DELETE /me/push-subscriptions."""

    endpoint: Annotated[str, Field(min_length=1, max_length=2048)]


class PushSubscriptionAnswer(Answer):
    """A stored Web Push subscription."""

    endpoint: str


DeviceToken = Annotated[str, Field(min_length=8, max_length=4096, pattern=r"^[A-Za-z0-9_:.\-]+$")]


class DeviceBody(Request):
    """POST /me/devices: a mobile app's push token."""

    platform: Literal["apns", "fcm"]
    token: DeviceToken


class DeviceTokenBody(Request):
    """DELETE /me/devices."""

    token: DeviceToken


class DeviceAnswer(Answer):
    """A stored mobile device."""

    platform: str
    token: str


class QuickplayBody(Request):
    """POST /quickplay: a table of this rule system (or any), now."""

    rules: Rules | Literal["any"]
    play_again: str | None = Field(
        default=None,
        max_length=64,
        description="The id of a finished quick-play room the caller played in: wait for "
        "the same people (all who press Play again) and sit down with them.",
    )


class QueueTicketOut(Answer):
    """A quick-play ticket."""

    id: str
    rules: str = Field(description="A rule system, or any.")
    status: Literal["waiting", "matched"]
    since: str = Field(description="When the caller asked (ISO 8601 UTC).")
    room_id: str | None = Field(description="The table, once matched.")
    play_again: str | None = None


class QuickplayAnswer(Answer):
    """POST /quickplay: the caller's ticket (a guest's is matched at once, to a bot table)."""

    ticket: QueueTicketOut


class QuickplayStatus(Answer):
    """GET /quickplay: the caller's ticket (signed-out callers: none) and who waits."""

    ticket: QueueTicketOut | None
    waiting: dict[str, int] = Field(
        description="How many people wait for each rule system (and for any)."
    )


class TicketAnswer(Answer):
    """POST /realtime/tickets."""

    ticket: str
    expires_at: IsoTime


class _SharedSettings(Answer):
    starting_dice: int
    wildcard_chance: int
    penalty: Penalty
    turn_seconds: int
    break_seconds: int
    joining: Joining
    rules: Rules
    pace: Literal["live", "correspondence"] = Field(
        default="live", description="live or correspondence."
    )
    passcode: str | None = None


class PublicSettings(_composed(_SharedSettings, lambda w: w.settings)):  # type: ignore[misc]
    """Room settings; ``passcode`` only in the host's view."""


class LobbyRoom(Answer):
    """One room in the lobby list."""

    id: str
    status: RoomStatus
    host_name: str
    players: int
    humans: int
    bots: int
    settings: PublicSettings
    created_by_guest: bool


class LobbyAnswer(Answer):
    """GET /rooms."""

    rooms: list[LobbyRoom]


class PlayerOut(Answer):
    """A seat in the room view."""

    id: str
    user_id: str | None
    name: str
    kind: Literal["human", "bot"]
    level: BotLevel | None = Field(default=None, description="Bots only: the bot's level.")
    seat: int
    ready: bool
    dice_count: int
    eliminated: bool
    resigned: bool
    rank: int | None


class MeOut(Answer):
    """The viewer's own place in the room."""

    player_id: str | None
    is_host: bool
    dice: list[int | str] | None
    request: Literal["pending", "denied"] | None
    continue_mode: ContinueMode | None = Field(
        description="The viewer's Auto/Manual choice in this room (null without a seat)."
    )
    invited: bool = Field(description="The host invited the viewer (joins without approval).")


class _BidBase(Answer):
    player_id: str


class BidOut(_composed(_BidBase, lambda w: w.bid)):  # type: ignore[misc]
    """A bid (``face`` is ``"*"`` for a star bid), or a poker claim (``hand``, ``category``)."""


class TurnOut(Answer):
    """Whose turn it is, its number (the ``turn`` to answer) and deadline."""

    number: int
    player_id: str
    deadline: IsoTime | None


class BreakOut(Answer):
    """The break between rounds."""

    deadline: IsoTime | None
    agreed: list[str]
    opener_id: str | None = Field(description="Who opens the next round.")


class RevealBidOut(_composed(Answer, lambda w: {k: (t, None) for k, (t, _) in w.bid.items()})):  # type: ignore[misc]
    """One of a player's bids (or poker claims) of the revealed round."""


class RevealRowOut(Answer):
    """One player's revealed hand."""

    player_id: str
    name: str
    dice: list[int | str]
    counted: list[bool]
    bids: list[RevealBidOut]


class _RevealBase(Answer):
    round: int
    bid: BidOut
    challenger_id: str
    count: int
    loser_id: str | None = Field(
        description="Who lost; null only when nobody lost (Poker Liar Dice: five aces made again)."
    )
    winner_id: str
    penalty: Literal["discard", "give", "life"] = Field(
        description="What the loss cost: the room's penalty setting (discard: the die leaves "
        'the game; give: it goes to the winner), or "life" in Poker Liar Dice (a life lost).'
    )
    eliminated: list[str]
    final: bool = Field(description="The deciding reveal of the game (the last round).")
    rows: list[RevealRowOut]


class RevealOut(_composed(_RevealBase, lambda w: w.reveal)):  # type: ignore[misc]
    """A completed round's reveal."""


class TableOut(_composed(Answer, lambda w: w.table)):  # type: ignore[misc]
    """Public round information beyond the current bid (Wild Stars, Poker, Perudo; null in classic)."""


class GameOut(Answer):
    """The game in play."""

    round: int
    phase: Literal["bidding", "break", "final_reveal", "finished"]
    turn: TurnOut | None
    current_bid: BidOut | None
    table: TableOut | None
    total_dice: int
    # "break" is a Python keyword: the wire name is kept through the alias.
    break_: BreakOut | None = Field(alias="break")
    deadline: IsoTime | None = Field(
        description="The phase's deadline while the game is playing (the turn's, the break's "
        "or the final reveal's); null once finished."
    )
    opener_id: str | None = Field(description="Who opened (or opens next) the round.")
    last_reveal: RevealOut | None
    starts_at: IsoTime | None = Field(
        default=None,
        description="Quick play: when the first round begins (the end of the countdown; "
        "ISO 8601 UTC). Compare with server_time to show the countdown.",
    )


class RankingRow(Answer):
    """A participant's final rank and ratings (humans in rated games)."""

    player_id: str
    rank: int | None
    rating_before: float | None
    rating_after: float | None


class ProgressRow(Answer):
    """Dice counts at the start of a round (the last row: final counts)."""

    round: int
    counts: dict[str, int]
    final: bool | None = Field(default=None, description="Only on the last row: final counts.")


class ResultsOut(Answer):
    """Final results."""

    ranking: list[RankingRow]
    dice_progress: list[ProgressRow]
    elo: EloRecord | None = Field(
        default=None, description="Rated games only: how the ratings were computed."
    )


class EloRecord(Answer):
    """How a rated game's ratings were computed."""

    k: float = Field(description="The Elo K factor of the game.")
    applied: bool = Field(description="The ratings were applied to the players' accounts.")


class PendingRequest(Answer):
    """A join request awaiting the host (approval rooms)."""

    user_id: str
    name: str


class RoomView(Answer):
    """A room as one viewer sees it (built by ``engine.views.room_view``)."""

    id: str
    status: RoomStatus
    version: int = Field(
        description="The room's stored version: one more with every change, and every change"
        " is pushed, so a push more than one ahead of the view you hold means one is still on"
        " its way or was missed (wait for it briefly, else GET the room). Keep the newest view."
    )
    host_id: str
    created_by_guest: bool
    recreated_as: str | None
    recreated_from: str | None = Field(description="The finished room this one was opened from.")
    rated: bool = Field(description="Ratings apply (registered humans only, no guests).")
    settings: PublicSettings
    players: list[PlayerOut]
    me: MeOut
    pending_requests: list[PendingRequest] | None = Field(
        default=None, description="The host's view only: join requests awaiting an answer."
    )
    game: GameOut | None
    results: ResultsOut | None
    quickplay: bool = Field(
        description="A quick-play table (made by Play now): closed to joins, rated with two "
        "or more humans; a seat left during the countdown goes to a bot.",
    )
    server_time: int = Field(
        description="The server's clock when this view was made (epoch ms): count deadlines "
        "down against it, not against the device's clock.",
    )


class HistoryPlayer(Answer):
    """A seat of the recorded game."""

    id: str
    name: str
    kind: Literal["human", "bot"]
    user_id: str | None
    seat: int
    level: BotLevel | None = Field(default=None, description="Bots only: the bot's level.")
    rank: int | None = Field(description="Final rank; null until the game has finished.")


class RoundRecord(Answer):
    """One completed round, written once when the round ended; or a round a resignation
    abandoned (``reveal`` null, ``resigned_id`` set: its hands were never shown)."""

    round: int
    attempt: int = Field(
        default=0,
        description="The deal of this round number: 0, then 1, 2… when a resignation "
        "abandoned the round and it was dealt again under the same number.",
    )
    at: IsoTime = Field(description="When the round was decided or abandoned (ISO 8601 UTC).")
    dice_counts: dict[str, int] = Field(
        description="Dice (Poker: lives) of each seat, by player id, when the round began."
    )
    bids: list[BidOut] = Field(
        description="Every bid of the round (Poker: every claim) in the order it was made."
    )
    reveal: RevealOut | None = Field(
        description="The reveal exactly as the players saw it: hands, the call, the count, "
        "the outcome, the penalty and the rule system's extras; null for an abandoned round."
    )
    resigned_id: str | None = Field(
        default=None, description="An abandoned round only: the player whose resignation ended it."
    )


class HandHistory(Answer):
    """A game's hand history: ``format`` ``liars-lies/hand-history``, ``version`` 1.

    ``rounds`` lists every completed round in order once the game has finished
    (``complete``); during play it is empty and only ``last_reveal`` (public to everyone
    already) is given. Readers should refuse a ``version`` they do not know; fields may be
    added within a version.
    """

    format: Literal["liars-lies/hand-history"]
    version: Literal[1]
    room_id: str
    status: RoomStatus
    complete: bool
    rules: Rules
    settings: PublicSettings
    rated: bool
    players: list[HistoryPlayer]
    finished_at: IsoTime | None
    rounds: list[RoundRecord]
    last_reveal: RevealOut | None
    results: ResultsOut | None


class LeaderboardRow(Answer):
    """A listed player."""

    rank: int = Field(description="1 for the highest rating.")
    name: str
    rating: float
    games: int = Field(description="Rated games played.")


class LeaderboardAnswer(Answer):
    """The top registered players by rating with at least ``min_games`` rated games."""

    min_games: int
    players: list[LeaderboardRow]


class ProfileGame(Answer):
    """One of the player's own rated games (newest first)."""

    room_id: str
    finished_at: IsoTime | None
    rules: Rules
    players: int = Field(description="Seats in the game, bots included.")
    rank: int
    rating_before: float
    delta: float
    rating_after: float


class ProfileAnswer(Answer):
    """A registered player's public profile."""

    username: str
    name: str
    rating: float
    rated_games: int
    wins: int
    best_finish: int | None = Field(description="The best rank reached; null before any game.")
    listed: bool = Field(description="On the leaderboard (at least five rated games).")
    recent: list[ProfileGame] = Field(description="The latest rated games, newest first.")


class ChatUser(Answer):
    """Who wrote a message."""

    id: str
    name: str


class ChatMessage(Answer):
    """A chat message."""

    id: str
    user: ChatUser
    text: str
    at: IsoTime


class ChatAnswer(Answer):
    """GET /rooms/{room_id}/chat."""

    messages: list[ChatMessage]


class EloChange(Answer):
    """One human's rating change under a finishing order."""

    player_id: str
    before: float
    delta: float
    after: float


class EloAnswer(Answer):
    """POST /rooms/{room_id}/elo-preview."""

    changes: list[EloChange]


class Health(Answer):
    """GET /health."""

    status: Literal["ok"]


# --- routes and the OpenAPI document ---------------------------------------------------------

Auth = Literal["none", "optional", "signed_in", "registered"]


@dataclass(frozen=True)
class RouteSpec:
    """One REST route as published: the models the route itself parses and answers with."""

    method: str
    path: str
    summary: str
    auth: Auth
    body: type[BaseModel] | None
    answer: type[BaseModel] | None
    status: int = 200
    query: tuple[str, ...] = ()
    also: tuple[int, ...] = ()
    """Other success statuses, answered with the same shape."""


ROUTES: list[RouteSpec] = []
"""Filled by ``app.py`` as it declares routes."""

_ERROR_STATUSES = {
    400: "invalid input: `invalid_json`, `invalid_input`, `unknown_field`, or the route's own "
    'codes (docs/API.md, "Error codes")',
    401: "not signed in, or a bad or stale token: `not_signed_in`, `invalid_token`, "
    "`unknown_user`, `bad_credentials`",
    403: "not allowed (the code says why: `not_host`, `guest_not_allowed`, `wrong_passcode`, …)",
    404: "no such room, user or resource: `not_found`, `unknown_room`, `unknown_user`, …",
    405: "the path has no route for this method: `method_not_allowed` (with an `Allow` header)",
    409: "conflict with the room's state (`not_waiting`, `stale_turn`, …); a room's 409 carries "
    "`room`, the caller's view now",
    413: "body over 16 KB: `body_too_large`",
    415: "a body that is not JSON: `unsupported_media_type`",
    429: "rate limited (`rate_limited`, `room_limit_reached`, `too_many_invitations`): retry "
    "after `Retry-After` seconds",
    503: "briefly unavailable (throttled or failing): `unavailable`; nothing changed, retry after "
    "`Retry-After` seconds",
}

_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    }
}

QUERY_SCHEMAS: dict[str, dict[str, Any]] = {
    "status": {"type": "string", "enum": ["waiting", "playing", "finished", "closed"]},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "after": {"type": "string", "minLength": 1, "maxLength": 64},
}
"""The published schema of each query parameter by name (any other: a string)."""

SERVERS: list[dict[str, Any]] = [
    {
        "url": "https://{apiId}.execute-api.{region}.amazonaws.com/api",
        "description": "The deployed API Gateway REST stage.",
        "variables": {"apiId": {"default": "example"}, "region": {"default": "us-east-1"}},
    },
    {"url": "http://localhost:8000", "description": "`liars-dice serve`: the local server."},
]


def _statuses(r: RouteSpec) -> list[int]:
    """The error statuses a route can answer with.

    Every route: 400 (a body or query it refuses), 401 (a bad or stale token is refused even on
    public routes), 404, 405, 413, 415, 429 and 503; 403 where a caller or a room's rules can
    refuse (signed-in routes and routes of one resource); 409 where the state can (every route
    that changes something, and the reads of one resource).
    """
    out = [400, 401, 404, 405, 413, 415, 429, 503]
    if r.auth in ("signed_in", "registered") or _path_params(r.path):
        out.append(403)
    if r.method != "GET" or _path_params(r.path):
        out.append(409)
    return sorted(out)


def without_null_defaults(node: Any) -> Any:
    """A JSON Schema without ``"default": null`` (it would make generated types require the
    field; an optional field is simply not in ``required``) and without ``discriminator``: each
    branch's ``type`` is a ``const`` that tells a ``oneOf`` apart, and strict validators (ajv)
    refuse OpenAPI's discriminator ``mapping``."""
    if isinstance(node, list):
        return [without_null_defaults(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: without_null_defaults(value)
        for key, value in node.items()
        if not (key == "default" and value is None) and key != "discriminator"
    }


def _docs_routes() -> list[RouteSpec]:
    """The routes ``app.py`` declares without the ``api`` decorator: health and the documents."""
    return [
        RouteSpec("GET", "/health", "Liveness probe", "none", None, Health),
        RouteSpec("GET", "/openapi.json", "This OpenAPI document", "none", None, None),
        RouteSpec(
            "GET", "/asyncapi.json", "The AsyncAPI document of the WebSocket", "none", None, None
        ),
    ]


def openapi_document(routes: list[RouteSpec] | None = None) -> dict[str, Any]:
    """The OpenAPI 3.1 description of ``routes`` (default: every declared route)."""
    routes = ROUTES if routes is None else routes
    routes = [
        *routes,
        *(
            d
            for d in _docs_routes()
            if (d.method, d.path) not in {(r.method, r.path) for r in routes}
        ),
    ]
    models: list[type[BaseModel]] = [ErrorBody]
    for r in routes:
        for m in (r.body, r.answer):
            if m is not None and m not in models:
                models.append(m)
    keyed: list[tuple[type[BaseModel], Literal["validation", "serialization"]]] = []
    for m in models:
        keyed.append(
            (m, "validation" if issubclass(m, Request) or m is ActionBody else "serialization")
        )
    refs, defs = models_json_schema(
        keyed, by_alias=True, ref_template="#/components/schemas/{model}"
    )
    error = {"application/json": {"schema": refs[(ErrorBody, "serialization")]}}
    paths: dict[str, dict[str, Any]] = {}
    for r in sorted(routes, key=lambda r: (r.path, r.method)):
        op: dict[str, Any] = {"summary": r.summary, "operationId": _op_id(r)}
        params = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in _path_params(r.path)
        ]
        params += [
            {
                "name": q,
                "in": "query",
                "required": False,
                "schema": QUERY_SCHEMAS.get(q, {"type": "string"}),
            }
            for q in r.query
        ]
        if params:
            op["parameters"] = params
        if r.auth in ("signed_in", "registered"):
            op["security"] = [{"bearer": []}]
        elif r.auth == "optional":
            op["security"] = [{}, {"bearer": []}]
        if r.body is not None:
            needed = r.body is ActionBody or any(
                f.is_required() for f in r.body.model_fields.values()
            )
            op["requestBody"] = {
                # an empty body stands for {} (every field of an optional body is optional)
                "required": needed,
                "content": {"application/json": {"schema": refs[(r.body, "validation")]}},
            }
        answer: dict[str, Any] = {"description": "OK"}
        if r.answer is not None:
            answer["content"] = {"application/json": {"schema": refs[(r.answer, "serialization")]}}
        elif r.path.endswith(".json"):
            answer["content"] = {"application/json": {"schema": {"type": "object"}}}
        responses: dict[str, Any] = {str(status): answer for status in (r.status, *r.also)}
        for status in _statuses(r):
            responses[str(status)] = {"description": _ERROR_STATUSES[status], "content": error}
            if status == 503:
                responses[str(status)]["headers"] = _RETRY_AFTER
            if status == 429:
                # a limit on counts (room_limit_reached, too_many_invitations) sends none
                responses[str(status)]["headers"] = {
                    "Retry-After": {**_RETRY_AFTER["Retry-After"], "required": False}
                }
            if status == 405:
                responses[str(status)]["headers"] = {
                    "Allow": {
                        "description": "The methods the path has.",
                        "schema": {"type": "string"},
                    }
                }
        op["responses"] = responses
        paths.setdefault(r.path, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Liar's Lies API",
            "version": "1.0.0",
            "description": "The REST contract of Liar's Lies (docs/API.md in the repository). "
            "The WebSocket is described by the AsyncAPI document (GET /asyncapi.json). Answers "
            "are closed: every field the server sends is here, and an optional field is one "
            "the server may leave out.",
        },
        "servers": SERVERS,
        "paths": paths,
        "components": {
            "schemas": without_null_defaults(defs.get("$defs", {})),
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
            },
        },
    }


def _path_params(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{")]


def _op_id(r: RouteSpec) -> str:
    parts = [p.strip("{}").replace("-", "_") for p in r.path.split("/") if p]
    return "_".join([r.method.lower(), *parts])


# --- WebSocket pushes and their events (the AsyncAPI document, chalicelib/asyncapi.py) --------

Event = EventOut
"""What every event carries (``type`` and ``at``): the base of the lobby's events below."""


class _TimeoutActionBase(Answer):
    type: Literal[  # type: ignore[valid-type]
        tuple(dict.fromkeys(t for s in SYSTEMS.values() for t in s.wire.timeout_actions))
    ]


class TimeoutAction(_composed(_TimeoutActionBase, lambda w: w.timeout_action)):  # type: ignore[misc]
    """The move the server played for a seat whose time ran out (a turn action)."""


def _bid_event_fields() -> dict[str, FieldSpec]:
    out: dict[str, FieldSpec] = {}
    for system in SYSTEMS.values():
        for name, spec in system.wire.bid_event.items():
            out.setdefault(name, spec)
    return out


_WIRE_TYPES = {"TimeoutAction": TimeoutAction}
GAME_EVENT_MODELS: tuple[type[BaseModel], ...] = (
    *(
        event_model(cls, wire_types=_WIRE_TYPES)
        for cls in (
            engine_events.GameStarted,
            engine_events.RoundStarted,
            engine_events.RoundRestarted,
        )
    ),
    event_model(engine_events.BidPlaced, own=_bid_event_fields()),
    event_model(engine_events.LiarCalled),
    *(
        event_model(cls, wire_types=_WIRE_TYPES)
        for cls in dict.fromkeys(c for s in SYSTEMS.values() for c in s.wire.events)
    ),
    *(
        event_model(cls, wire_types=_WIRE_TYPES)
        for cls in (
            engine_events.TurnTimedOut,
            engine_events.ChallengeResolved,
            engine_events.PlayerEliminated,
            engine_events.PlayerResigned,
            engine_events.Agreed,
            engine_events.BreakStarted,
            engine_events.BreakEnded,
            engine_events.FinalRevealStarted,
            engine_events.PlayerReplaced,
            engine_events.GameFinished,
        )
    ),
)
"""The published model of every game event, each made from its one declaration."""


class RoomCreated(Event):
    """The room was opened."""

    type: Literal["room_created"]


class PlayerJoined(Event):
    """A user took a seat."""

    type: Literal["player_joined"]
    user_id: str


class JoinRequested(Event):
    """A user asked the host to join (approval rooms)."""

    type: Literal["join_requested"]
    user_id: str


class RoomRecreated(Event):
    """A new waiting room was opened from this finished one."""

    type: Literal["room_recreated"]
    room_id: str


EVENT_MODELS: tuple[type[BaseModel], ...] = (
    *GAME_EVENT_MODELS,
    RoomCreated,
    PlayerJoined,
    JoinRequested,
    RoomRecreated,
)
"""Every event type, each named once (past tense) by its ``type``."""

EVENT_OUT: dict[str, type[BaseModel]] = {
    get_args(m.model_fields["type"].annotation)[0]: m for m in EVENT_MODELS
}
"""The published model of each event ``type``."""

AnyEvent = Annotated[
    Union[(*EVENT_MODELS,)],  # type: ignore[valid-type]
    Field(discriminator="type"),
]


class RoomPush(Answer):
    """After every change of a watched room: this viewer's room view and what happened."""

    type: Literal["room"]
    room: RoomView
    events: list[AnyEvent] = Field(
        description="Every event of the change, in order, each once; empty in a subscribe or "
        "tick answer. A bid of the running round is never listed again later."
    )
    events_dropped: bool | None = Field(
        default=None,
        description="Not every event of the change fit one frame: `events` holds the first "
        "ones, in order, and the rest were dropped; the view is current.",
    )


class RoomChangedPush(Answer):
    """The view did not fit one frame: fetch ``GET /rooms/{room_id}``."""

    type: Literal["room_changed"]
    room_id: str
    version: int


class ChatPush(Answer):
    """A chat message posted in a watched room."""

    type: Literal["chat"]
    room_id: str
    message: ChatMessage


class ErrorPush(Answer):
    """A client message was refused (``action`` and ``room_id`` say which)."""

    type: Literal["error"]
    error: ErrorDetail
    action: str | None = None
    room_id: str | None = None
    retry_after: int | None = Field(
        default=None,
        description="with code unavailable: seconds to wait before sending the message again",
    )


class PongPush(Answer):
    """The answer to ``ping``."""

    type: Literal["pong"]


class MatchFoundPush(Answer):
    """Quick play seated the user: to every signed-in connection of theirs, subscribed or not."""

    type: Literal["match_found"]
    ticket_id: str
    room_id: str = Field(description="The table: subscribe to it (its countdown is running).")


SERVER_MESSAGES: tuple[type[Answer], ...] = (
    RoomPush,
    RoomChangedPush,
    ChatPush,
    ErrorPush,
    PongPush,
    MatchFoundPush,
)
"""Every message the server sends over the WebSocket."""
