"""Configuration, read lazily from the environment (never at import time).

``chalice package`` imports ``app.py`` with no environment, so nothing here runs until
``get_settings()`` is first called; the result is cached per process (``reset_settings()``
drops the cache, for tests and the local server).

Environment variables (all optional unless noted; numbers are base-10 integers > 0):

Storage and AWS
    TABLE_NAME              DynamoDB table holding everything (default ``liars-lies``).
    AWS_REGION              Region of every AWS client; falls back to AWS_DEFAULT_REGION,
                            then ``us-east-1``.
    WEBSOCKET_API_ID        Id of the deployed API Gateway WebSocket API; required to push
                            messages in AWS (the notifier builds its endpoint from it).
    WEBSOCKET_STAGE         Stage of that WebSocket API (default ``api``, as in
                            ``.chalice/config.json``).
    TIMER_FUNCTION_ARN      ARN of the Lambda that EventBridge Scheduler invokes for room
                            timers; required for timers in AWS.
    SCHEDULER_ROLE_ARN      Role that EventBridge Scheduler assumes to invoke that Lambda;
                            required for timers in AWS.
    SCHEDULER_GROUP         Schedule group for room timers (default ``default``).
    TIMER_DEAD_LETTER_ARN   SQS queue that receives a room wake-up EventBridge Scheduler could
                            not deliver after its retries (optional; none when unset).

Token signing secret (the first one set wins; one of them is required to sign tokens)
    TOKEN_SECRET_ARN        Secrets Manager secret id/ARN holding the signing keys.
    TOKEN_SECRET_PARAM      SSM Parameter Store name (SecureString, read with decryption).
    TOKEN_SECRET            The keys in plain text, for the local server and tests only.
    The value is either one string (the key, kid ``k1``) or a JSON object
    ``{"current": "<kid>", "keys": {"<kid>": "<key>", ...}}``; every key is at least 32 bytes.

Auth
    TOKEN_TTL_SECONDS       Lifetime of a bearer token (default 604800 = 7 days).
    TICKET_TTL_SECONDS      Lifetime of a single-use WebSocket ticket (default 60).
    CONNECTION_TTL_SECONDS  How long a WebSocket connection record is kept without a
                            disconnect (default 10800 = 3 h; API Gateway closes at 2 h).

Limits (operator caps, not game rules)
    MAX_PLAYERS_PER_ROOM    Seats per room, humans and bots (default 100).
    MAX_ROOMS_PER_USER      Open (waiting or playing) rooms a user may host (default 5).
    CHAT_MAX_LENGTH         Characters per chat message (default 500).
    CHAT_RATE               Chat messages per user and room per window (default 5).
    CHAT_USER_RATE          Chat messages per user in all rooms together per window
                            (default 10).
    CHAT_WINDOW_SECONDS     That window (default 10).
    PASSCODE_MAX_ATTEMPTS   Passcode attempts per user and room per window (default 5).
    PASSCODE_WINDOW_SECONDS That window (default 900 = 15 min).
    PASSCODE_ROOM_MAX_ATTEMPTS
                            Wrong passcode attempts per room overall, from every account
                            together, per window (default 20). Counted per room lineage: a
                            recreated room (same passcode) shares its predecessor's count.
    PASSCODE_ROOM_WINDOW_SECONDS
                            That window (default 3600 = 1 h). With the defaults, guessing a
                            4-digit code takes 5,000 tries on average: 250 hours (10 days).
    LOGIN_MAX_ATTEMPTS      Wrong sign-ins per username and source address per window
                            (default 10); another address is never slowed by them.
    LOGIN_SOURCE_MAX_ATTEMPTS
                            Wrong sign-ins per source address, any usernames (default 50).
    LOGIN_WINDOW_SECONDS    The window of both login limits (default 300 = 5 min).
    REGISTER_PER_SOURCE     Registrations per source address per window (default 20).
    REGISTER_WINDOW_SECONDS That window (default 3600 = 1 h).
    GUEST_PER_SOURCE        Guest sign-ins per source address per window (default 30).
    GUEST_WINDOW_SECONDS    That window (default 3600 = 1 h).
    GUEST_TTL_SECONDS       How long a guest account lives (default 86400 = 1 day): the user
                            item carries the DynamoDB TTL attribute ``expires_at`` and the
                            guest's token expires with it (a guest cannot sign in again).
    INVITATIONS_PER_ROOM    Invitations a room may hold while waiting (default 30).
    INVITATIONS_PER_USER    Pending invitations a user may hold (default 20).
    ROOM_CREATIONS_PER_USER Rooms a user may create (or recreate) per window (default 30):
                            MAX_ROOMS_PER_USER counts open rooms only, and a room its
                            creator leaves is closed (kept 30 days).
    ROOM_CREATION_WINDOW_SECONDS
                            That window (default 3600 = 1 h).
    LOBBY_ACTIONS_PER_USER  Room changes outside the game's moves a user may make per window,
                            in all rooms together (default 30): ready, settings, bots, join,
                            leave, requests, invitations, start and continue-mode changes.
                            Each is a room write pushed to every watcher of the room.
    LOBBY_WINDOW_SECONDS    That window (default 10).
    TICKETS_PER_USER        WebSocket tickets a user may take per window (default 20): each
                            opens one signed-in connection.
    TICKET_WINDOW_SECONDS   That window (default 60).
    CONNECTS_PER_SOURCE     New WebSocket connections per source address per window, signed
                            in or not (default 120); more are refused (429) at the handshake.
    CONNECT_WINDOW_SECONDS  That window (default 60).

Quick play
    QUICKPLAY_WAIT_SECONDS  How long a ticket waits for people before its table is completed
                            with bots (default 20).
    QUICKPLAY_COUNTDOWN_SECONDS
                            The countdown of a quick-play table before its first round
                            (default 5): a seat left in it goes to a bot.
    QUICKPLAY_ACTIONS_PER_USER
                            Play now / cancel requests a user may make per window (default 10).
    QUICKPLAY_ACTIONS_PER_SOURCE
                            The same per source address, all users together (default 120).
    QUICKPLAY_WINDOW_SECONDS
                            That window (default 60).

Cross-origin browser pages
    CORS_ALLOW_ORIGINS      Origins whose web pages may call the REST API, comma-separated
                            (``https://app.example,http://localhost:5173``), or ``*`` for any
                            (default: none; only pages of the API's own origin can).
                            See ``chalicelib/cors.py``.

Notifications (docs/OPERATIONS.md, "Notifications")
    VAPID_SECRET_ARN        Secrets Manager secret whose text the VAPID key (Web Push) is
                            derived from (the stack creates it). Without it and without
                            VAPID_SECRET the server sends no Web Push.
    VAPID_SECRET            That text in plain form (local server: the data folder's file).
    VAPID_SUBJECT           The contact the push services see in each VAPID token
                            (``mailto:`` or ``https:`` URL; default a placeholder).
    PUSH_ENDPOINT_ALLOW     Origins of the push services the server may send to,
                            comma-separated (``https://host``, ``https://*.domain``, or
                            ``http://127.0.0.1:PORT`` for a test service on loopback); default
                            the major browsers' services (``chalicelib/push_endpoints.py``).
    SNS_APNS_APPLICATION_ARN, SNS_FCM_APPLICATION_ARN
                            SNS platform applications for mobile push (APNs, FCM); without
                            them, ``POST /me/devices`` answers 404 ``push_not_configured``.

Pace of play
    BOT_THINK_MIN_MS        A bot's shortest think time before its move, in ms (default
                            1000; 0 allowed). Each bot move, and the reveal after a bot's
                            Liar!, is stamped a think time after the event before it.
    BOT_THINK_MAX_MS        The longest (default 2500; at least BOT_THINK_MIN_MS). Test
                            suites that play whole games against bots use a short range.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from chalicelib.push_endpoints import AllowList, BadAllowEntry, parse_allow_list


class ConfigError(Exception):
    """A configuration value is missing or malformed."""

    code = "config_error"


@dataclass(frozen=True)
class Settings:
    """Every configuration value the application reads (see the module docstring)."""

    table_name: str = "liars-lies"
    region: str = "us-east-1"
    websocket_api_id: str | None = None
    websocket_stage: str = "api"
    timer_function_arn: str | None = None
    scheduler_role_arn: str | None = None
    scheduler_group: str = "default"
    timer_dead_letter_arn: str | None = None
    token_secret_arn: str | None = None
    token_secret_param: str | None = None
    token_secret: str | None = None
    token_ttl_seconds: int = 7 * 24 * 3600
    ticket_ttl_seconds: int = 60
    connection_ttl_seconds: int = 3 * 3600
    max_players_per_room: int = 100
    max_rooms_per_user: int = 5
    chat_max_length: int = 500
    chat_rate: int = 5
    chat_user_rate: int = 10
    chat_window_seconds: int = 10
    passcode_max_attempts: int = 5
    passcode_window_seconds: int = 15 * 60
    passcode_room_max_attempts: int = 20
    passcode_room_window_seconds: int = 3600
    login_max_attempts: int = 10
    login_source_max_attempts: int = 50
    login_window_seconds: int = 300
    register_per_source: int = 20
    register_window_seconds: int = 3600
    guest_per_source: int = 30
    guest_window_seconds: int = 3600
    guest_ttl_seconds: int = 24 * 3600
    invitations_per_room: int = 30
    invitations_per_user: int = 20
    room_creations_per_user: int = 30
    room_creation_window_seconds: int = 3600
    lobby_actions_per_user: int = 30
    lobby_window_seconds: int = 10
    tickets_per_user: int = 20
    ticket_window_seconds: int = 60
    connects_per_source: int = 120
    connect_window_seconds: int = 60
    bot_think_min_ms: int = 1000
    bot_think_max_ms: int = 2500
    cors_allow_origins: tuple[str, ...] = ()
    vapid_secret_arn: str | None = None
    vapid_secret: str | None = None
    vapid_subject: str = "mailto:operator@liars-lies.invalid"
    push_endpoint_allow: str | None = None
    sns_apns_arn: str | None = None
    sns_fcm_arn: str | None = None

    @property
    def push_allow(self) -> AllowList:
        """The allow-list of push endpoint origins (``PUSH_ENDPOINT_ALLOW``, else defaults)."""
        return parse_allow_list(self.push_endpoint_allow)

    quickplay_wait_seconds: int = 20
    quickplay_countdown_seconds: int = 5
    quickplay_actions_per_user: int = 10
    quickplay_actions_per_source: int = 120
    quickplay_window_seconds: int = 60

    @property
    def bot_think_ms(self) -> tuple[int, int]:
        """The bots' think time range in ms (lowest, highest), as the engine takes it."""
        return (self.bot_think_min_ms, self.bot_think_max_ms)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Build settings from ``env`` (default: ``os.environ``); raise ConfigError."""
        e = os.environ if env is None else env
        d = cls()
        return cls(
            table_name=_str(e, "TABLE_NAME") or d.table_name,
            region=_str(e, "AWS_REGION") or _str(e, "AWS_DEFAULT_REGION") or d.region,
            websocket_api_id=_str(e, "WEBSOCKET_API_ID"),
            websocket_stage=_str(e, "WEBSOCKET_STAGE") or d.websocket_stage,
            timer_function_arn=_str(e, "TIMER_FUNCTION_ARN"),
            scheduler_role_arn=_str(e, "SCHEDULER_ROLE_ARN"),
            scheduler_group=_str(e, "SCHEDULER_GROUP") or d.scheduler_group,
            timer_dead_letter_arn=_str(e, "TIMER_DEAD_LETTER_ARN"),
            token_secret_arn=_str(e, "TOKEN_SECRET_ARN"),
            token_secret_param=_str(e, "TOKEN_SECRET_PARAM"),
            token_secret=_str(e, "TOKEN_SECRET"),
            token_ttl_seconds=_int(e, "TOKEN_TTL_SECONDS", d.token_ttl_seconds),
            ticket_ttl_seconds=_int(e, "TICKET_TTL_SECONDS", d.ticket_ttl_seconds),
            connection_ttl_seconds=_int(e, "CONNECTION_TTL_SECONDS", d.connection_ttl_seconds),
            max_players_per_room=_int(e, "MAX_PLAYERS_PER_ROOM", d.max_players_per_room),
            max_rooms_per_user=_int(e, "MAX_ROOMS_PER_USER", d.max_rooms_per_user),
            chat_max_length=_int(e, "CHAT_MAX_LENGTH", d.chat_max_length),
            chat_rate=_int(e, "CHAT_RATE", d.chat_rate),
            chat_user_rate=_int(e, "CHAT_USER_RATE", d.chat_user_rate),
            chat_window_seconds=_int(e, "CHAT_WINDOW_SECONDS", d.chat_window_seconds),
            passcode_max_attempts=_int(e, "PASSCODE_MAX_ATTEMPTS", d.passcode_max_attempts),
            passcode_window_seconds=_int(e, "PASSCODE_WINDOW_SECONDS", d.passcode_window_seconds),
            passcode_room_max_attempts=_int(
                e, "PASSCODE_ROOM_MAX_ATTEMPTS", d.passcode_room_max_attempts
            ),
            passcode_room_window_seconds=_int(
                e, "PASSCODE_ROOM_WINDOW_SECONDS", d.passcode_room_window_seconds
            ),
            login_max_attempts=_int(e, "LOGIN_MAX_ATTEMPTS", d.login_max_attempts),
            login_source_max_attempts=_int(
                e, "LOGIN_SOURCE_MAX_ATTEMPTS", d.login_source_max_attempts
            ),
            login_window_seconds=_int(e, "LOGIN_WINDOW_SECONDS", d.login_window_seconds),
            register_per_source=_int(e, "REGISTER_PER_SOURCE", d.register_per_source),
            register_window_seconds=_int(e, "REGISTER_WINDOW_SECONDS", d.register_window_seconds),
            guest_per_source=_int(e, "GUEST_PER_SOURCE", d.guest_per_source),
            guest_window_seconds=_int(e, "GUEST_WINDOW_SECONDS", d.guest_window_seconds),
            guest_ttl_seconds=_int(e, "GUEST_TTL_SECONDS", d.guest_ttl_seconds),
            invitations_per_room=_int(e, "INVITATIONS_PER_ROOM", d.invitations_per_room),
            invitations_per_user=_int(e, "INVITATIONS_PER_USER", d.invitations_per_user),
            room_creations_per_user=_int(e, "ROOM_CREATIONS_PER_USER", d.room_creations_per_user),
            room_creation_window_seconds=_int(
                e, "ROOM_CREATION_WINDOW_SECONDS", d.room_creation_window_seconds
            ),
            lobby_actions_per_user=_int(e, "LOBBY_ACTIONS_PER_USER", d.lobby_actions_per_user),
            lobby_window_seconds=_int(e, "LOBBY_WINDOW_SECONDS", d.lobby_window_seconds),
            tickets_per_user=_int(e, "TICKETS_PER_USER", d.tickets_per_user),
            ticket_window_seconds=_int(e, "TICKET_WINDOW_SECONDS", d.ticket_window_seconds),
            connects_per_source=_int(e, "CONNECTS_PER_SOURCE", d.connects_per_source),
            connect_window_seconds=_int(e, "CONNECT_WINDOW_SECONDS", d.connect_window_seconds),
            **_think_range(e, d.bot_think_min_ms, d.bot_think_max_ms),
            cors_allow_origins=_origins(e),
            vapid_secret_arn=_str(e, "VAPID_SECRET_ARN"),
            vapid_secret=_str(e, "VAPID_SECRET"),
            vapid_subject=_str(e, "VAPID_SUBJECT") or d.vapid_subject,
            push_endpoint_allow=_push_allow(e),
            sns_apns_arn=_str(e, "SNS_APNS_APPLICATION_ARN"),
            sns_fcm_arn=_str(e, "SNS_FCM_APPLICATION_ARN"),
            quickplay_wait_seconds=_int(e, "QUICKPLAY_WAIT_SECONDS", d.quickplay_wait_seconds),
            quickplay_countdown_seconds=_int(
                e, "QUICKPLAY_COUNTDOWN_SECONDS", d.quickplay_countdown_seconds
            ),
            quickplay_actions_per_user=_int(
                e, "QUICKPLAY_ACTIONS_PER_USER", d.quickplay_actions_per_user
            ),
            quickplay_actions_per_source=_int(
                e, "QUICKPLAY_ACTIONS_PER_SOURCE", d.quickplay_actions_per_source
            ),
            quickplay_window_seconds=_int(
                e, "QUICKPLAY_WINDOW_SECONDS", d.quickplay_window_seconds
            ),
        )


def _think_range(env: Mapping[str, str], low: int, high: int) -> dict[str, int]:
    """BOT_THINK_MIN_MS and BOT_THINK_MAX_MS: whole numbers, 0 allowed, min ≤ max."""
    values = {"bot_think_min_ms": low, "bot_think_max_ms": high}
    for name, key in (
        ("BOT_THINK_MIN_MS", "bot_think_min_ms"),
        ("BOT_THINK_MAX_MS", "bot_think_max_ms"),
    ):
        raw = _str(env, name)
        if raw is None:
            continue
        try:
            values[key] = int(raw, 10)
        except ValueError:
            raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
        if values[key] < 0:
            raise ConfigError(f"{name} must be 0 or more, got {values[key]}")
    if _str(env, "BOT_THINK_MIN_MS") is not None and _str(env, "BOT_THINK_MAX_MS") is None:
        values["bot_think_max_ms"] = max(values["bot_think_max_ms"], values["bot_think_min_ms"])
    if values["bot_think_min_ms"] > values["bot_think_max_ms"]:
        raise ConfigError("BOT_THINK_MIN_MS must not exceed BOT_THINK_MAX_MS")
    return values


def _origins(env: Mapping[str, str]) -> tuple[str, ...]:
    """CORS_ALLOW_ORIGINS: ``()``, ``("*",)`` or origins (``chalicelib.cors.parse_origins``)."""
    from chalicelib.cors import BadOrigin, parse_origins

    try:
        return parse_origins(env.get("CORS_ALLOW_ORIGINS"))
    except BadOrigin as err:
        raise ConfigError(f"CORS_ALLOW_ORIGINS: {err}") from None


def _push_allow(env: Mapping[str, str]) -> str | None:
    """PUSH_ENDPOINT_ALLOW, checked now (a bad entry is a configuration error at start)."""
    raw = _str(env, "PUSH_ENDPOINT_ALLOW")
    try:
        parse_allow_list(raw)
    except BadAllowEntry as err:
        raise ConfigError(f"PUSH_ENDPOINT_ALLOW: {err}") from None
    return raw


def _str(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = _str(env, name)
    if raw is None:
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be greater than 0, got {value}")
    return value


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read from the environment on first use."""
    return Settings.from_env()


def reset_settings() -> None:
    """Forget the cached settings so the next ``get_settings()`` reads the environment again."""
    get_settings.cache_clear()
