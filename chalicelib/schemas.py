"""Pydantic request and response models of the REST API, and the OpenAPI 3.1 document built from them.

Request models are strict and refuse unknown fields, so nothing a client sends is ever bound
to state it does not own (no mass assignment of host, dice, version or rating). Response
models describe what the routes return (the room view is built by ``engine.views``; the
models document it and allow fields to be added). ``ROUTES`` is filled by ``app.py``'s route
decorator; ``openapi_document()`` turns it into the published document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel
from pydantic.json_schema import models_json_schema

from chalicelib.engine.actions import SHARED_FLOW_BODIES, WholeNumber
from chalicelib.engine.systems import ACTION_BODIES

MAX_BODY_BYTES = 16 * 1024
"""Bodies above this size are refused with 413 before parsing."""


class Request(BaseModel):
    """Base of request bodies: strict types, unknown fields refused."""

    model_config = ConfigDict(strict=True, extra="forbid")


class Answer(BaseModel):
    """Base of response bodies: fields may be added (API.md)."""

    model_config = ConfigDict(extra="allow")


Username = Annotated[str, Field(min_length=3, max_length=24, pattern=r"^[A-Za-z0-9_-]+$")]
Password = Annotated[str, Field(min_length=8, max_length=128)]
DisplayName = Annotated[str, Field(min_length=1, max_length=24)]
Id = Annotated[str, Field(min_length=1, max_length=64)]
Passcode = Annotated[str, Field(pattern=r"^[0-9]{4}$")]
ContinueMode = Literal["auto", "manual"]


FaceOut = int | Literal["*"]
Rules = Literal["classic", "wild-stars", "poker", "perudo"]
"""The rule systems: the registry's names (``engine.systems.SYSTEMS``; a test keeps them equal)."""
PokerFace = Literal["9", "T", "J", "Q", "K", "A"]
"""A poker die's face, low to high, as views show it (the action bodies declare their own)."""
PokerCategory = Literal[
    "high_card",
    "pair",
    "two_pairs",
    "three_of_a_kind",
    "full_house",
    "four_of_a_kind",
    "five_of_a_kind",
]


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
    """PATCH /me/preferences; ``room_id`` (optional) also applies the mode in that room now."""

    continue_mode: ContinueMode
    room_id: Id | None = None


class SettingsBody(Request):
    """Room settings (docs/API.md, "Settings"); every field optional (partial edits)."""

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
    lives: Annotated[Literal[1, 2, 3, 4, 5], WholeNumber] | None = None
    dogs_life: bool | None = None

    def changes(self) -> dict[str, Any]:
        """Only the fields the client sent."""
        return self.model_dump(exclude_unset=True)


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


class ChatBody(Request):
    """POST /rooms/{room_id}/chat (the operator's length cap applies too)."""

    text: Annotated[str, Field(min_length=1, max_length=2000)]


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
    room: dict[str, Any] | None = None


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


class TicketAnswer(Answer):
    """POST /realtime/tickets."""

    ticket: str
    expires_at: str


class PublicSettings(Answer):
    """Room settings; ``passcode`` only in the host's view."""

    starting_dice: int
    wildcard_chance: int
    penalty: str
    turn_seconds: int
    break_seconds: int
    joining: str
    rules: str
    pace: str = Field(default="live", description="live or correspondence.")
    lives: int | None = Field(default=None, description="Poker Liar Dice: lives per player.")
    dogs_life: bool | None = Field(
        default=None, description="Poker Liar Dice: the first player out gets one extra life."
    )
    passcode: str | None = None


class LobbyRoom(Answer):
    """One room in the lobby list."""

    id: str
    status: str
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
    level: str | None = None
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


class BidOut(Answer):
    """A bid (``face`` is ``"*"`` for a star bid), or a poker claim (``hand``, ``category``)."""

    player_id: str
    quantity: int | None = None
    face: FaceOut | None = None
    hand: list[PokerFace] | None = Field(
        default=None, description="Poker Liar Dice: the full hand the claim stands for."
    )
    category: PokerCategory | None = None


class TurnOut(Answer):
    """Whose turn it is, its number (the ``turn`` to answer) and deadline."""

    number: int
    player_id: str
    deadline: str | None


class BreakOut(Answer):
    """The break between rounds."""

    deadline: str | None
    agreed: list[str]


class RevealBidOut(Answer):
    """One of a player's bids (or poker claims) of the revealed round."""

    quantity: int | None = None
    face: FaceOut | None = None
    hand: list[PokerFace] | None = None
    category: PokerCategory | None = None


class RevealRowOut(Answer):
    """One player's revealed hand."""

    player_id: str
    name: str
    dice: list[int | str]
    counted: list[bool]
    bids: list[RevealBidOut]


class RevealOut(Answer):
    """A completed round's reveal."""

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
    rows: list[RevealRowOut]
    lost: dict[str, int] | None = Field(
        default=None, description="Wild Stars: dice each player lost in this challenge."
    )
    perfect: bool | None = Field(
        default=None, description="Wild Stars: the count equalled the bid (a perfect bid)."
    )
    die_hard: list[str] | None = Field(
        default=None, description="Wild Stars: players who kept their last die (Die Hard)."
    )
    shown: dict[str, list[bool]] | None = Field(
        default=None,
        description="Wild Stars: per player, which of ``rows[].dice`` were shown (set out).",
    )
    cup: list[PokerFace] | None = Field(default=None, description="Poker: the lifted cup.")
    exposed: list[int] | None = Field(
        default=None, description="Poker: cup positions that were exposed."
    )
    hand: PokerHandOut | None = Field(default=None, description="Poker: what the cup holds.")
    rerolls: list[RerollOut] | None = Field(
        default=None, description="Poker: the hand's announced rerolls, in order."
    )
    five_aces: bool | None = Field(
        default=None, description="Poker: decided by the five-aces rolls, not a challenge."
    )
    dogs_life: str | None = Field(
        default=None, description="Poker: the player who took the dog's life here."
    )
    next_id: str | None = Field(default=None, description="Poker: who starts the next hand.")
    kind: Literal["dudo", "calza"] | None = Field(
        default=None,
        description="Perudo: the challenge was Dudo (Liar!) or a calza (the bid claimed exact; "
        "``challenger_id`` is the caller, ``loser_id`` null when it was exact).",
    )
    palifico: bool | None = Field(
        default=None, description="Perudo: the round was a palifico round (aces not wild)."
    )
    gained_id: str | None = Field(
        default=None,
        description="Perudo: the calza caller who won a die back (null otherwise, also when "
        "an exact calza found the caller at the starting dice).",
    )


class PokerHandOut(Answer):
    """A poker hand and its category."""

    hand: list[PokerFace]
    category: PokerCategory


class RerollOut(Answer):
    """How many dice a player rerolled (announced truthfully by the server)."""

    player_id: str
    count: int


class TableOut(Answer):
    """Public round information beyond the current bid (Wild Stars, Poker, Perudo; null in classic)."""

    shown: dict[str, list[int | str]] | None = Field(
        default=None, description="Wild Stars: dice each player has set out in the open."
    )
    stage: Literal["claim", "respond", "reroll", "aces"] | None = Field(
        default=None, description="Poker Liar Dice: what the player to act does now."
    )
    holder_id: str | None = Field(default=None, description="Poker: who holds the cup.")
    exposed: list[PokerFace | None] | None = Field(
        default=None, description="Poker: the cup by position, exposed faces or null (hidden)."
    )
    rerolls: list[RerollOut] | None = Field(
        default=None, description="Poker: every announced reroll of this hand, in order."
    )
    lives: int | None = Field(default=None, description="Poker: lives each player started with.")
    aces_rolls_left: int | None = Field(
        default=None, description="Poker: rolls left after accepting five aces."
    )
    palifico: bool | None = Field(
        default=None,
        description="Perudo: this is a palifico round (aces not wild, the face fixed).",
    )


class GameOut(Answer):
    """The game in play."""

    round: int
    phase: Literal["bidding", "break", "final_reveal", "finished"]
    turn: TurnOut | None
    current_bid: BidOut | None
    table: TableOut | None = None
    total_dice: int
    # "break" is a Python keyword: the wire name is kept through the alias.
    break_: BreakOut | None = Field(alias="break")
    last_reveal: RevealOut | None


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


class ResultsOut(Answer):
    """Final results."""

    ranking: list[RankingRow]
    dice_progress: list[ProgressRow]


class RoomView(Answer):
    """A room as one viewer sees it (built by ``engine.views.room_view``)."""

    id: str
    status: Literal["waiting", "playing", "finished", "closed"]
    version: int = Field(
        description="The room's stored version: one more with every change, and every change"
        " is pushed, so a push more than one ahead of the view you hold means one is still on"
        " its way or was missed (wait for it briefly, else GET the room). Keep the newest view."
    )
    host_id: str
    created_by_guest: bool
    recreated_as: str | None
    settings: PublicSettings
    players: list[PlayerOut]
    me: MeOut
    pending_requests: list[dict[str, str]] | None = None
    game: GameOut | None
    results: ResultsOut | None
    server_time: int | None = Field(
        default=None,
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
    level: str | None = None
    rank: int | None = Field(description="Final rank; null until the game has finished.")


class RoundRecord(Answer):
    """One completed round, written once when the round ended."""

    round: int
    at: str = Field(description="When the round was decided (ISO 8601 UTC).")
    dice_counts: dict[str, int] = Field(
        description="Dice (Poker: lives) of each seat, by player id, when the round began."
    )
    bids: list[BidOut] = Field(
        description="Every bid of the round (Poker: every claim) in the order it was made."
    )
    reveal: RevealOut = Field(
        description="The reveal exactly as the players saw it: hands, the call, the count, "
        "the outcome, the penalty and the rule system's extras."
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
    status: Literal["waiting", "playing", "finished", "closed"]
    complete: bool
    rules: Rules
    settings: PublicSettings
    rated: bool
    players: list[HistoryPlayer]
    finished_at: str | None
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
    finished_at: str | None
    rules: str
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
    at: str


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

    status: str


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


ROUTES: list[RouteSpec] = []
"""Filled by ``app.py`` as it declares routes."""

_ERROR_STATUSES = {
    400: "invalid input",
    401: "not signed in or bad token",
    403: "not allowed",
    404: "unknown room or user",
    409: "conflict (the body carries the current room view)",
    413: "body too large",
    429: "rate limited",
    503: "briefly unavailable (throttled or failing); nothing changed, retry after Retry-After",
}


def openapi_document(routes: list[RouteSpec] | None = None) -> dict[str, Any]:
    """The OpenAPI 3.1 description of ``routes`` (default: every declared route)."""
    routes = ROUTES if routes is None else routes
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
    paths: dict[str, dict[str, Any]] = {}
    for r in sorted(routes, key=lambda r: (r.path, r.method)):
        op: dict[str, Any] = {"summary": r.summary, "operationId": _op_id(r)}
        params = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in _path_params(r.path)
        ]
        params += [
            {"name": q, "in": "query", "required": False, "schema": {"type": "string"}}
            for q in r.query
        ]
        if params:
            op["parameters"] = params
        if r.auth in ("signed_in", "registered"):
            op["security"] = [{"bearer": []}]
        elif r.auth == "optional":
            op["security"] = [{}, {"bearer": []}]
        if r.body is not None:
            op["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": refs[(r.body, "validation")]}},
            }
        answer: dict[str, Any] = {"description": "OK"}
        if r.answer is not None:
            answer["content"] = {"application/json": {"schema": refs[(r.answer, "serialization")]}}
        responses: dict[str, Any] = {str(r.status): answer}
        for status, text in _ERROR_STATUSES.items():
            responses[str(status)] = {
                "description": text,
                "content": {"application/json": {"schema": refs[(ErrorBody, "serialization")]}},
            }
        op["responses"] = responses
        paths.setdefault(r.path, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Liar's Lies API",
            "version": "1.0.0",
            "description": "The REST contract of Liar's Lies (docs/API.md in the repository). "
            "The WebSocket is described by the AsyncAPI document (GET /asyncapi.json).",
        },
        "paths": paths,
        "components": {
            "schemas": defs.get("$defs", {}),
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

Stamp = Annotated[
    str,
    Field(
        description="ISO 8601 UTC with milliseconds: when it happens at the table. A bot's move "
        "may be stamped after the push is sent (its think time); play events at their stamps.",
        examples=["2026-01-01T12:00:01.250Z"],
    ),
]
By = Literal["player", "bot", "timeout"]
DieOut = int | Literal["*"]


class Event(Answer):
    """What every event carries: its ``type`` and ``at``."""

    at: Stamp


class SeatEvent(Event):
    """An event a seat caused, with who acted: the player, a bot, or the server on a timeout."""

    player_id: str
    by: By


class MoveEvent(SeatEvent):
    """A turn move of the running round (``round`` is the round it belongs to)."""

    round: int


class BidPlaced(MoveEvent):
    """A bid or claim, with what it said (announced once, in the push of the change that made it).

    Classic and Wild Stars: ``quantity`` and ``face`` (``"*"`` for a bid on stars). Wild Stars
    adds ``show`` (the dice set out in the open with this bid, now public) and ``reroll``
    (whether the rest of the cup was rerolled). Poker Liar Dice: ``hand`` (the five faces the
    claim stands for) and ``category``; ``exposed`` / ``unexposed`` when the claim set cup
    positions out in the open or took them back (as ``dice_rerolled`` announces a reroll's).
    """

    type: Literal["bid_placed"]
    quantity: int | None = None
    face: FaceOut | None = None
    show: list[DieOut] | None = None
    reroll: bool | None = None
    hand: list[PokerFace] | None = None
    category: PokerCategory | None = None
    exposed: list[int] | None = None
    unexposed: list[int] | None = None


class LiarCalled(MoveEvent):
    """Liar! on the current bid or claim; the reveal follows (``challenge_resolved``)."""

    type: Literal["liar_called"]


class CalzaCalled(MoveEvent):
    """Perudo: a calza (the current bid claimed exactly right); the reveal follows."""

    type: Literal["calza_called"]


class ClaimAccepted(MoveEvent):
    """Poker Liar Dice: the receiver accepted the claim passed to them."""

    type: Literal["claim_accepted"]


class DiceRerolled(MoveEvent):
    """Poker Liar Dice: how many dice the cup's holder rerolled (announced; faces stay hidden).

    ``exposed`` / ``unexposed``: cup positions set out in the open or taken back.
    """

    type: Literal["dice_rerolled"]
    count: int = Field(ge=0, le=5)
    exposed: list[int] | None = None
    unexposed: list[int] | None = None


class RollsStopped(MoveEvent):
    """Poker Liar Dice: the holder stopped the five-aces rolls."""

    type: Literal["rolls_stopped"]


class TimeoutAction(Answer):
    """The move the server played for a seat whose time ran out (a turn action)."""

    type: Literal["bid", "liar", "claim", "accept", "reroll", "stop"]
    quantity: int | None = None
    face: FaceOut | None = None
    hand: str | None = Field(default=None, description='Poker: always "better".')
    dice: list[int] | None = Field(
        default=None,
        description="Never sent: which cup positions were rerolled stays hidden (see count).",
    )
    count: int | None = Field(
        default=None,
        description="Poker's five-aces rolls: how many dice the reroll played for the seat took.",
    )
    unexpose: list[int] | None = None


class TurnTimedOut(MoveEvent):
    """A seat's turn deadline passed: ``action`` is the move played for it, announced next."""

    type: Literal["turn_timed_out"]
    by: Literal["timeout"]
    turn: int
    action: TimeoutAction


class ChallengeResolved(Event):
    """The round is decided: the full reveal is the view's ``game.last_reveal``."""

    type: Literal["challenge_resolved"]
    round: int
    count: int
    loser_id: str | None
    winner_id: str


class PlayerEliminated(Event):
    """A seat lost its last die (or life) and takes the lowest free rank."""

    type: Literal["player_eliminated"]
    player_id: str
    rank: int


class PlayerResigned(SeatEvent):
    """A seat resigned and takes the lowest free rank."""

    type: Literal["player_resigned"]
    rank: int


class Agreed(SeatEvent):
    """A player agreed to start the next round (Auto players and bots agree silently)."""

    type: Literal["agreed"]


class GameStarted(Event):
    """Play began."""

    type: Literal["game_started"]


class RoundStarted(Event):
    """A round began: everyone rolled; ``opener_id`` bids first."""

    type: Literal["round_started"]
    round: int
    opener_id: str


class RoundRestarted(Event):
    """The round was dealt again after a resignation (bids cleared, same round number)."""

    type: Literal["round_restarted"]
    round: int
    opener_id: str


class BreakStarted(Event):
    """The break between rounds began; it ends at ``deadline`` or when everyone agreed."""

    type: Literal["break_started"]
    deadline: Stamp


class BreakEnded(Event):
    """The break's deadline passed (the next round starts)."""

    type: Literal["break_ended"]


class FinalRevealStarted(Event):
    """One player has dice left: the deciding reveal shows until ``deadline``."""

    type: Literal["final_reveal_started"]
    deadline: Stamp


class GameFinished(Event):
    """Results are published (the view's ``results``)."""

    type: Literal["game_finished"]
    winner_id: str | None


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


EVENT_MODELS: tuple[type[Event], ...] = (
    GameStarted,
    RoundStarted,
    RoundRestarted,
    BidPlaced,
    LiarCalled,
    CalzaCalled,
    ClaimAccepted,
    DiceRerolled,
    RollsStopped,
    TurnTimedOut,
    ChallengeResolved,
    PlayerEliminated,
    PlayerResigned,
    Agreed,
    BreakStarted,
    BreakEnded,
    FinalRevealStarted,
    GameFinished,
    RoomCreated,
    PlayerJoined,
    JoinRequested,
    RoomRecreated,
)
"""Every event type, each named once (past tense) by its ``type``."""

AnyEvent = Annotated[
    GameStarted
    | RoundStarted
    | RoundRestarted
    | BidPlaced
    | LiarCalled
    | CalzaCalled
    | ClaimAccepted
    | DiceRerolled
    | RollsStopped
    | TurnTimedOut
    | ChallengeResolved
    | PlayerEliminated
    | PlayerResigned
    | Agreed
    | BreakStarted
    | BreakEnded
    | FinalRevealStarted
    | GameFinished
    | RoomCreated
    | PlayerJoined
    | JoinRequested
    | RoomRecreated,
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


SERVER_MESSAGES: tuple[type[Answer], ...] = (
    RoomPush,
    RoomChangedPush,
    ChatPush,
    ErrorPush,
    PongPush,
)
"""Every message the server sends over the WebSocket."""
