"""Chalice wiring only: REST routes, WebSocket handlers and the room timer handler.

Why it is over 600 lines: it is the one place where every route is declared (its path,
models, auth and statuses, which the OpenAPI document is built from); each handler is a few
lines calling one use case, so a split by area would only scatter the contract's index.

Handlers parse input, call one service function and map domain errors to HTTP answers
(ARCHITECTURE.md decision 7). Configuration is read lazily: ``chalice package`` imports this
module with no environment.

Every REST route is declared with ``api(...)``, which registers the Chalice route, records its
models for the OpenAPI document (``chalicelib.schemas.ROUTES``) and wraps the handler: body
size check (413), a non-JSON body's content type (415), JSON parsing and pydantic validation
(400), the bearer token (401), and the one error mapping of ``chalicelib.errors``, so no client
input can produce a 5xx. The answers Chalice makes itself (405 and others) are rewritten to
the same error shape by the ``project_errors`` middleware.
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalice.app import Chalice, ChaliceViewError, Rate, Response
from pydantic import BaseModel

from chalicelib import cors, jsonbody
from chalicelib import schemas as s
from chalicelib.errors import (
    ApiError,
    body,
    from_chalice,
    is_json_media_type,
    retry_after,
    to_response,
    unsupported_media_type,
)
from chalicelib.ports import Unavailable
from chalicelib.settings import ConfigError, get_settings

app = Chalice(app_name="liars-lies")
app.experimental_feature_flags.update(["WEBSOCKETS"])
log = logging.getLogger("liars-lies")

JSON_HEADERS: dict[str, str | list[str]] = {"Content-Type": "application/json"}
MAX_PATH_PARAM = 64
ANY_CONTENT_TYPE = ["*/*"]


@dataclass(frozen=True)
class Call:
    """One parsed request: the caller (or None), the validated body, the query string."""

    caller: Any  # chalicelib.service.Caller | None
    body: Any
    query: dict[str, str]
    source: str = "unknown"
    """The client's address: API Gateway's ``requestContext.identity.sourceIp``."""


@dataclass(frozen=True)
class Answered:
    """A handler's answer with a status of its own (a route whose success status varies:
    201 created or 200 again; 204 with no body)."""

    status: int
    body: Any = None


def _source_ip(request: Any) -> str:
    """The caller's address as API Gateway saw it (the local server puts its peer there).

    Never a header: ``X-Forwarded-For`` is whatever the client wants it to be.
    """
    context = getattr(request, "context", None) or {}
    identity = context.get("identity") if isinstance(context, dict) else None
    ip = identity.get("sourceIp") if isinstance(identity, dict) else None
    return ip if isinstance(ip, str) and ip else "unknown"


def _service() -> Any:
    from chalicelib import wiring
    from chalicelib.service import Service

    return Service(wiring.get_deps())


def _use(area: str) -> Any:
    """The use cases of ``area`` (``chalicelib.service.<area>``), imported on first use."""
    return importlib.import_module(f"chalicelib.service.{area}")


def _json(status: int, payload: Any, exc: BaseException | None = None) -> Response:
    headers = JSON_HEADERS
    wait = retry_after(exc) if exc is not None else None
    if wait is not None:
        headers = {**JSON_HEADERS, "Retry-After": str(wait)}
    return Response(body=payload, status_code=status, headers=headers)


def _parse_body(model: type[BaseModel] | None, raw: bytes | str | None) -> Any:
    """Validate the body with the route's model; routes without one ignore a JSON body."""
    text = raw or b""  # bytes from API Gateway, str from some test clients
    # Python's strip() removes more than JSON's whitespace: only test for emptiness with it.
    if not text.strip():
        data: Any = {}
    else:
        try:
            data = jsonbody.loads(text)
        except jsonbody.TooDeep:
            raise ApiError(
                400, "invalid_json", f"the body nests deeper than {jsonbody.MAX_DEPTH} levels"
            ) from None
        except (ValueError, UnicodeDecodeError):
            raise ApiError(400, "invalid_json", "the body is not valid JSON") from None
    if model is None:
        return None
    if model is not s.ActionBody and not isinstance(data, dict):
        raise ApiError(400, "invalid_input", "the body must be a JSON object")
    return model.model_validate(data)


def api(
    method: str,
    path: str,
    *,
    summary: str,
    auth: s.Auth = "none",
    body_model: type[BaseModel] | None = None,
    answer: type[BaseModel] | None = None,
    status: int = 200,
    query: tuple[str, ...] = (),
    also: tuple[int, ...] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a REST route: Chalice registration, OpenAPI record and the error-proof wrapper.

    ``also``: the other success statuses the route answers with (``Answered``), same shape.
    """
    s.ROUTES.append(
        s.RouteSpec(method, path, summary, auth, body_model, answer, status, query, also)
    )

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def handler(**params: str) -> Response:
            try:
                from chalicelib.service import caller_from_header, require, require_registered

                request = app.current_request
                raw = request.raw_body if request is not None else b""
                if raw and len(raw) > s.MAX_BODY_BYTES:
                    raise ApiError(
                        413, "body_too_large", f"bodies are limited to {s.MAX_BODY_BYTES} bytes"
                    )
                headers = request.headers if request is not None else {}
                if raw and not is_json_media_type(headers.get("content-type")):
                    raise unsupported_media_type(headers.get("content-type", ""))
                for value in params.values():
                    if len(value) > MAX_PATH_PARAM or not value.isprintable():
                        raise ApiError(404, "not_found", "no such resource")
                caller = caller_from_header(headers.get("authorization"))
                if caller is not None:
                    _observability().bind(user_id=caller.user_id)
                if caller is not None and auth != "none":
                    # A valid token of a user that no longer exists is refused (401).
                    caller = _use("accounts").known(_service(), caller)
                if auth == "signed_in":
                    caller = require(caller)
                elif auth == "registered":
                    caller = require_registered(caller, summary.lower().rstrip("."))
                parsed = _parse_body(body_model, raw)
                q = dict(request.query_params or {}) if request is not None else {}
                result = fn(Call(caller, parsed, q, _source_ip(request)), **params)
                if isinstance(result, Answered):
                    if result.status == 204:
                        return Response(body="", status_code=204, headers={})
                    return _json(result.status, result.body)
                return _json(status, result)
            except Exception as exc:
                known = to_response(exc)
                if known is not None:
                    return _json(*known, exc)
                if isinstance(exc, ChaliceViewError):
                    return _json(
                        exc.STATUS_CODE if exc.STATUS_CODE < 500 else 400,
                        body("bad_request", str(exc)),
                    )
                log.exception("unexpected error in %s %s", method, path)
                return _json(500, body("internal_error", "something went wrong on our side"))

        # Any content type reaches the handler, which refuses a non-JSON *body* itself (415):
        # Chalice's own check would also refuse an empty POST labelled, as aiohttp and curl
        # label it, application/octet-stream or x-www-form-urlencoded.
        app.route(path, methods=[method], content_types=ANY_CONTENT_TYPE)(handler)
        return handler

    return decorate


def _observability() -> Any:
    from chalicelib import observability

    return observability


@app.middleware("all")
def observe(event: Any, get_response: Callable[[Any], Any]) -> Any:
    """Every invocation: structured log context, one log line, metrics flushed at the end."""
    return _observability().around_invocation(event, get_response)


@app.middleware("http")
def project_errors(event: Any, get_response: Callable[[Any], Any]) -> Any:
    """Chalice's own answers (405 unknown method, 415, 500) in the project's error shape.

    Chalice makes them before or around any route handler, as ``{"Code", "Message"}``: the
    status and headers (``Allow`` on a 405) stay, the body becomes ``{"error": {...}}``.
    With ``CORS_ALLOW_ORIGINS`` set, it also answers preflights and gives every answer its
    CORS headers (``chalicelib/cors.py``); unset, it does nothing more than before.
    """
    allowed = _cors_origins()
    if allowed and event is not None and cors.is_preflight(event.method, event.headers):
        preflight = _preflight(event, allowed)
        if preflight is not None:
            return preflight
    response = get_response(event)
    if isinstance(response, Response) and response.status_code >= 400:
        rewritten = from_chalice(response.body)
        if rewritten is not None:
            response.body = rewritten
            response.headers = {**response.headers, **JSON_HEADERS}
    if allowed and event is not None and isinstance(response, Response):
        # A copy: answers share module-level header dicts (JSON_HEADERS).
        response.headers = headers = dict(response.headers)
        cors.add_headers(headers, event.headers.get("origin"), allowed)
    return response


def _cors_origins() -> tuple[str, ...]:
    """The origins allowed to call from a browser (``CORS_ALLOW_ORIGINS``; () by default).

    A malformed value allows none here; every route that reads the settings reports it.
    """
    try:
        return get_settings().cors_allow_origins
    except ConfigError:
        return ()


def _preflight(event: Any, allowed: tuple[str, ...]) -> Response | None:
    """The 204 answer to a preflight from an allowed origin; None: answer as without CORS."""
    origin = event.headers.get("origin")
    methods = app.routes.get(event.path)
    if cors.allowed_origin(origin, allowed) is None or not methods or "OPTIONS" in methods:
        return None
    headers = cors.preflight_headers(origin, allowed, methods)
    return Response(body="", status_code=204, headers=headers)


@app.route("/health", methods=["GET"], content_types=ANY_CONTENT_TYPE)
def health() -> dict[str, str]:
    """Liveness probe for load balancers and the local server."""
    return {"status": "ok"}


@app.route("/openapi.json", methods=["GET"], content_types=ANY_CONTENT_TYPE)
def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 description, generated from the routes' own pydantic models."""
    return s.openapi_document()


@app.route("/asyncapi.json", methods=["GET"], content_types=ANY_CONTENT_TYPE)
def asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3.0 description of the WebSocket, generated from the same pydantic models."""
    from chalicelib.asyncapi import asyncapi_document

    return asyncapi_document()


# --- accounts --------------------------------------------------------------------------------


@api(
    "POST",
    "/auth/guest",
    summary="Sign in as a guest",
    body_model=s.GuestBody,
    answer=s.AuthAnswer,
    status=201,
)
def auth_guest(call: Call) -> Any:
    """A new anonymous account and its token."""
    return _use("accounts").guest(_service(), call.body.name, call.source)


@api(
    "POST",
    "/auth/register",
    summary="Register",
    body_model=s.Credentials,
    answer=s.AuthAnswer,
    status=201,
)
def auth_register(call: Call) -> Any:
    """A new registered account and its token."""
    return _use("accounts").register(
        _service(), call.body.username, call.body.password, call.source
    )


@api("POST", "/auth/login", summary="Sign in", body_model=s.LoginBody, answer=s.AuthAnswer)
def auth_login(call: Call) -> Any:
    """A token for username and password (a wrong password is 401 whatever its length)."""
    return _use("accounts").login(_service(), call.body.username, call.body.password, call.source)


@api("GET", "/me", summary="Profile", auth="signed_in", answer=s.MeAnswer)
def me(call: Call) -> Any:
    """The caller's profile, rating, preferences and invitations."""
    return _use("accounts").me(_service(), call.caller)


@api(
    "PATCH",
    "/me/preferences",
    summary="Set preferences",
    auth="signed_in",
    body_model=s.PreferencesBody,
    answer=s.PreferencesAnswer,
)
def me_preferences(call: Call) -> Any:
    """Store the continue mode (and apply it in the caller's rooms) and the language."""
    return _use("accounts").set_preferences(
        _service(), call.caller, call.body.continue_mode, call.body.room_id, call.body.language
    )


@api("GET", "/me/games", summary="My games", auth="signed_in", answer=s.MyGamesAnswer)
def my_games(call: Call) -> Any:
    """The caller's waiting and playing rooms, theirs to move first."""
    return _use("notifications").my_games(_service(), call.caller.user_id)


@api("GET", "/push/vapid-public-key", summary="Web Push key", answer=s.VapidKeyAnswer)
def vapid_public_key(call: Call) -> Any:
    """The server's VAPID public key (the browser's applicationServerKey)."""
    return _use("notifications").vapid_public_key(_service())


@api(
    "POST",
    "/me/push-subscriptions",
    summary="Register a browser for Web Push",
    auth="registered",
    body_model=s.PushSubscriptionBody,
    answer=s.PushSubscriptionAnswer,
    status=201,
    also=(200,),
)
def push_subscribe(call: Call) -> Any:
    """Store the browser's PushSubscription (201; 200 for an endpoint already stored)."""
    b = call.body
    created, answer = _use("notifications").subscribe(
        _service(), call.caller.user_id, b.endpoint, b.keys.p256dh, b.keys.auth
    )
    return Answered(201 if created else 200, answer)


@api(
    "DELETE",
    "/me/push-subscriptions",
    summary="Forget a browser",
    auth="registered",
    body_model=s.PushEndpointBody,
    status=204,
)
def push_unsubscribe(call: Call) -> Any:
    """Forget the caller's subscription at the endpoint (204 either way)."""
    _use("notifications").unsubscribe(_service(), call.caller.user_id, call.body.endpoint)
    return Answered(204)


@api(
    "POST",
    "/me/devices",
    summary="Register a mobile device",
    auth="registered",
    body_model=s.DeviceBody,
    answer=s.DeviceAnswer,
    status=201,
    also=(200,),
)
def device_add(call: Call) -> Any:
    """Store a mobile push token (201; 200 for a token already stored)."""
    created, answer = _use("notifications").add_device(
        _service(), call.caller.user_id, call.body.platform, call.body.token
    )
    return Answered(201 if created else 200, answer)


@api(
    "DELETE",
    "/me/devices",
    summary="Forget a mobile device",
    auth="registered",
    body_model=s.DeviceTokenBody,
    status=204,
)
def device_remove(call: Call) -> Any:
    """Forget the caller's device with that token (204 either way)."""
    _use("notifications").remove_device(_service(), call.caller.user_id, call.body.token)
    return Answered(204)


@api(
    "POST",
    "/realtime/tickets",
    summary="Get a WebSocket ticket",
    auth="signed_in",
    answer=s.TicketAnswer,
    status=201,
)
def realtime_ticket(call: Call) -> Any:
    """A single-use, short-lived WebSocket ticket."""
    return _use("accounts").ticket(_service(), call.caller)


# --- rooms -----------------------------------------------------------------------------------


@api("GET", "/rooms", summary="Lobby", auth="optional", answer=s.LobbyAnswer, query=("status",))
def rooms_list(call: Call) -> Any:
    """Rooms by status (default waiting)."""
    return _use("lobby").list_rooms(_service(), call.query.get("status"))


@api(
    "POST",
    "/rooms",
    summary="Create a room",
    auth="signed_in",
    body_model=s.CreateRoomBody,
    answer=s.RoomView,
    status=201,
)
def rooms_create(call: Call) -> Any:
    """A new room; the creator is host and ready."""
    settings = call.body.settings.changes() if call.body.settings else None
    return _use("lobby").create_room(_service(), call.caller, settings)


@api("GET", "/rooms/{room_id}", summary="Room view", auth="optional", answer=s.RoomView)
def room_get(call: Call, room_id: str) -> Any:
    """The room as the caller may see it."""
    return _use("play").get_room(_service(), room_id, call.caller)


@api(
    "GET",
    "/rooms/{room_id}/history",
    summary="Hand history",
    auth="optional",
    answer=s.HandHistory,
)
def room_history(call: Call, room_id: str) -> Any:
    """Every round of a finished game (format ``liars-lies/hand-history`` v1); during play only
    the latest reveal."""
    return _use("records").history(_service(), room_id)


@api(
    "GET",
    "/leaderboard",
    summary="Leaderboard",
    answer=s.LeaderboardAnswer,
    query=("limit",),
)
def leaderboard(call: Call) -> Any:
    """The top registered players by rating (at least five rated games)."""
    return _use("records").leaderboard(_service(), call.query.get("limit"))


@api("GET", "/users/{username}", summary="Player profile", answer=s.ProfileAnswer)
def user_profile(call: Call, username: str) -> Any:
    """A registered player's rating, games, wins, best finish and latest rating changes."""
    return _use("records").profile(_service(), username)


@api(
    "PATCH",
    "/rooms/{room_id}/settings",
    summary="Edit settings",
    auth="signed_in",
    body_model=s.SettingsBody,
    answer=s.RoomView,
)
def room_settings(call: Call, room_id: str) -> Any:
    """The host edits settings while waiting."""
    return _use("lobby").update_settings(_service(), call.caller, room_id, call.body.changes())


@api(
    "POST",
    "/rooms/{room_id}/join",
    summary="Join a room",
    auth="registered",
    body_model=s.JoinBody,
    answer=s.RoomView,
)
def room_join(call: Call, room_id: str) -> Any:
    """Join, or request to join in approval mode."""
    return _use("lobby").join(_service(), call.caller, room_id, call.body.passcode)


@api("POST", "/rooms/{room_id}/leave", summary="Leave a room", auth="signed_in", answer=s.RoomView)
def room_leave(call: Call, room_id: str) -> Any:
    """Leave a waiting room or withdraw a request."""
    return _use("lobby").leave(_service(), call.caller, room_id)


@api(
    "PUT",
    "/rooms/{room_id}/ready",
    summary="Set ready",
    auth="signed_in",
    body_model=s.ReadyBody,
    answer=s.RoomView,
)
def room_ready(call: Call, room_id: str) -> Any:
    """A member toggles ready."""
    return _use("lobby").set_ready(_service(), call.caller, room_id, call.body.ready)


@api(
    "POST",
    "/rooms/{room_id}/requests/{user_id}/approve",
    summary="Approve a request",
    auth="signed_in",
    answer=s.RoomView,
)
def room_approve(call: Call, room_id: str, user_id: str) -> Any:
    """The host seats a requester."""
    return _use("lobby").approve(_service(), call.caller, room_id, user_id)


@api(
    "POST",
    "/rooms/{room_id}/requests/{user_id}/deny",
    summary="Deny a request",
    auth="signed_in",
    answer=s.RoomView,
)
def room_deny(call: Call, room_id: str, user_id: str) -> Any:
    """The host denies a requester."""
    return _use("lobby").deny(_service(), call.caller, room_id, user_id)


@api(
    "POST",
    "/rooms/{room_id}/invitations",
    summary="Invite a user",
    auth="signed_in",
    body_model=s.InviteBody,
    answer=s.RoomView,
)
def room_invite(call: Call, room_id: str) -> Any:
    """The host invites a registered user by username."""
    return _use("invitations").invite(_service(), call.caller, room_id, call.body.username)


@api(
    "POST",
    "/rooms/{room_id}/bots",
    summary="Add a bot",
    auth="signed_in",
    body_model=s.AddBotBody,
    answer=s.RoomView,
    status=201,
)
def room_add_bot(call: Call, room_id: str) -> Any:
    """The host adds a bot."""
    return _use("lobby").add_bot(_service(), call.caller, room_id, call.body.level)


@api(
    "DELETE",
    "/rooms/{room_id}/bots/{player_id}",
    summary="Remove a bot",
    auth="signed_in",
    answer=s.RoomView,
)
def room_remove_bot(call: Call, room_id: str, player_id: str) -> Any:
    """The host removes a bot."""
    return _use("lobby").remove_bot(_service(), call.caller, room_id, player_id)


@api(
    "POST", "/rooms/{room_id}/start", summary="Start the game", auth="signed_in", answer=s.RoomView
)
def room_start(call: Call, room_id: str) -> Any:
    """The host starts play."""
    return _use("lobby").start(_service(), call.caller, room_id)


@api(
    "POST",
    "/rooms/{room_id}/actions",
    summary="Act in the game",
    auth="signed_in",
    body_model=s.ActionBody,
    answer=s.RoomView,
)
def room_action(call: Call, room_id: str) -> Any:
    """Bid, Liar!, agree or resign."""
    command = call.body.root.command()
    answer = _use("play").act(_service(), call.caller, room_id, command)
    _observability().action_applied(command.TYPE)
    return answer


@api(
    "POST",
    "/rooms/{room_id}/tick",
    summary="Apply passed deadlines",
    auth="optional",
    answer=s.RoomView,
)
def room_tick(call: Call, room_id: str) -> Any:
    """The server applies every deadline that has passed."""
    return _use("play").get_room(_service(), room_id, call.caller)


@api(
    "POST",
    "/rooms/{room_id}/recreate",
    summary="Recreate the room",
    auth="signed_in",
    answer=s.RoomView,
    status=201,
)
def room_recreate(call: Call, room_id: str) -> Any:
    """A participant opens a new room with the same settings."""
    return _use("lobby").recreate(_service(), call.caller, room_id)


@api(
    "GET",
    "/rooms/{room_id}/chat",
    summary="Read chat",
    auth="optional",
    answer=s.ChatAnswer,
    query=("after",),
)
def room_chat(call: Call, room_id: str) -> Any:
    """Messages in order."""
    return _use("chat").chat(_service(), room_id, call.query.get("after"))


@api(
    "POST",
    "/rooms/{room_id}/chat",
    summary="post chat",
    auth="registered",
    body_model=s.ChatBody,
    answer=s.ChatMessage,
    status=201,
)
def room_chat_post(call: Call, room_id: str) -> Any:
    """A registered user posts a message."""
    return _use("chat").post_chat(_service(), call.caller, room_id, call.body.text)


@api(
    "POST",
    "/rooms/{room_id}/elo-preview",
    summary="Preview rating changes",
    auth="signed_in",
    body_model=s.EloPreviewBody,
    answer=s.EloAnswer,
)
def room_elo_preview(call: Call, room_id: str) -> Any:
    """The rating changes a finishing order would produce."""
    return _use("play").elo_preview(_service(), call.caller, room_id, call.body.order)


# --- quick play ------------------------------------------------------------------------------


def _quickplay() -> Any:
    from chalicelib.service.quickplay import Quickplay

    return Quickplay(_service())


@api(
    "POST",
    "/quickplay",
    summary="Play now",
    auth="signed_in",
    body_model=s.QuickplayBody,
    answer=s.QuickplayAnswer,
    status=202,
    also=(200, 201),
)
def quickplay_enqueue(call: Call) -> Any:
    """Wait for a table (202; 200: the ticket already held); a guest: a bot table (201)."""
    status, answer = _quickplay().enqueue(
        call.caller, call.body.rules, call.body.play_again, call.source
    )
    return Answered(status, answer)


@api("GET", "/quickplay", summary="Quick-play status", auth="optional", answer=s.QuickplayStatus)
def quickplay_status(call: Call) -> Any:
    """The caller's ticket and how many people wait per rule system."""
    return _quickplay().status(call.caller)


@api("DELETE", "/quickplay", summary="Cancel Play now", auth="signed_in", status=204)
def quickplay_cancel(call: Call) -> Any:
    """Cancel a waiting ticket (409 already_matched once matched)."""
    _quickplay().cancel(call.caller, call.source)
    return None


# --- WebSocket handlers (ws_connect, ws_message, ws_disconnect) and the room_timer lambda ------
# are added below by the realtime work; they call chalicelib.service the same way.


def _realtime() -> Any:
    from chalicelib import realtime

    return realtime


@app.on_ws_connect()
def ws_connect(event: Any) -> dict[str, int]:
    """Accept a ticket holder or a spectator; refuse a bad or used ticket (401)."""
    raw = event.to_dict()
    query = raw.get("queryStringParameters") or {}
    context = raw.get("requestContext") or {}
    identity = context.get("identity") if isinstance(context, dict) else None
    source = identity.get("sourceIp") if isinstance(identity, dict) else None
    try:
        answer: dict[str, int] = _realtime().connect(
            event.connection_id, query, source=source if isinstance(source, str) else "unknown"
        )
    except Unavailable:
        log.warning("WebSocket connect refused: the store is unavailable")
        return {"statusCode": 503}
    except Exception:
        log.exception("WebSocket connect failed")
        return {"statusCode": 500}
    return answer


@app.on_ws_message()
def ws_message(event: Any) -> None:
    """subscribe, unsubscribe, tick or ping; anything else is answered with an error message."""
    _realtime().handle_message(event.connection_id, event.body)


@app.on_ws_disconnect()
def ws_disconnect(event: Any) -> None:
    """Forget the connection and its subscriptions."""
    try:
        _realtime().disconnect(event.connection_id)
    except Exception:
        log.exception("WebSocket disconnect cleanup failed (the record expires by TTL)")


@app.lambda_function(name="room_timer")
def room_timer(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """EventBridge Scheduler's one-time wake-up of a room: apply the deadlines that passed."""
    payload = event if isinstance(event, dict) else {}
    result: dict[str, Any] = _realtime().on_timer(payload.get("room_id"), payload.get("version"))
    return result


@app.schedule(Rate(5, unit=Rate.MINUTES), name="games_gauge")
def games_gauge(event: Any) -> None:
    """Every five minutes: how many games are being played (the GamesRunning metric)."""
    _observability().games_running(_service().store)


@app.schedule(Rate(1, unit=Rate.MINUTES), name="room_sweeper")
def room_sweeper(event: Any) -> None:
    """Every minute: wake the rooms whose deadline passed over a minute ago (lost wake-ups)."""
    _realtime().sweep()
