"""Accounts: guests, registration, sign-in, the caller's own profile, preferences, tickets."""

from __future__ import annotations

import secrets

from chalicelib import auth, effects, wire
from chalicelib import text as text_rules
from chalicelib.engine import game as game_flow
from chalicelib.engine.model import Room, Status
from chalicelib.ports import UserRecord
from chalicelib.service import limits
from chalicelib.service.callers import Caller
from chalicelib.service.core import Event, JsonDict, Service
from chalicelib.service.errors import Clash, InvalidInput, NotSignedIn, ServiceError
from chalicelib.service.invitations import live_invitations


def _session(svc: Service, user: UserRecord) -> JsonDict:
    ttl = None
    if user.guest:
        # A guest cannot sign in again: its token lives exactly as long as its record.
        ttl = min(svc.cfg.token_ttl_seconds, svc.cfg.guest_ttl_seconds)
    return wire.session(auth.issue_token(user, ttl_seconds=ttl), user)


def guest(svc: Service, name: str | None, source: str = "unknown") -> JsonDict:
    """Sign in as a new guest (limited per source address; the guest expires, see settings)."""
    shown = None
    if name is not None and name.strip():
        shown = text_rules.check_display_name(name, "name")
        _refuse_lookalike(svc, shown)
    limits.hit(svc, limits.GUEST, limits.source_key(source))
    uid = "g" + secrets.token_hex(8)
    now = svc.now()
    user = svc.store.create_user(
        uid,
        None,
        None,
        True,
        shown or f"Guest {secrets.token_hex(2)}",
        now_ms=now,
        expires_at_s=now // 1000 + svc.cfg.guest_ttl_seconds,
    )
    return _session(svc, user)


def _refuse_lookalike(svc: Service, name: str) -> None:
    """400 ``name_taken`` for a guest name that reads as a registered username."""
    candidate = text_rules.username_lookalike(name)
    if candidate is not None and svc.store.get_user_by_username(candidate) is not None:
        raise InvalidInput(
            "that name reads as a registered user's name", code="name_taken", field="name"
        )


def register(svc: Service, username: str, password: str, source: str = "unknown") -> JsonDict:
    """Create a registered account (409 ``username_taken``; limited per source address)."""
    text_rules.check_display_name(username, "username")
    limits.hit(svc, limits.REGISTER, limits.source_key(source))
    if svc.store.get_user_by_username(username) is not None:
        raise Clash("that username is taken", code="username_taken", field="username")
    uid = "u" + secrets.token_hex(8)
    user = svc.store.create_user(
        uid, username, auth.hash_password(password), False, username, now_ms=svc.now()
    )
    return _session(svc, user)


def login(svc: Service, username: str, password: str, source: str = "unknown") -> JsonDict:
    """Sign in (401 on bad credentials, whatever the password's length).

    Wrong attempts are limited per username *and* source address, and per source address:
    they slow down that source only, so the owner can always sign in from elsewhere. A
    successful sign-in gives its attempt back.
    """
    now, window = svc.now(), svc.cfg.login_window_seconds
    src = limits.source_key(source)
    pair = limits.hit(svc, limits.LOGIN, username.lower(), src)
    per_source = limits.hit(svc, limits.LOGIN_SOURCE, src)
    user = svc.store.get_user_by_username(username)
    if user is None or user.password_hash is None:
        auth.burn_password_check(password)
        raise NotSignedIn("wrong username or password", code="bad_credentials")
    if not auth.verify_password(user.password_hash, password):
        raise NotSignedIn("wrong username or password", code="bad_credentials")
    # Giving the attempts back is bookkeeping: a fault there must not refuse the owner.
    svc.after([effects.Refund(pair, window, now), effects.Refund(per_source, window, now)])
    if auth.needs_rehash(user.password_hash):
        svc.store.set_password_hash(user.id, auth.hash_password(password))
    return _session(svc, user)


def known(svc: Service, caller: Caller) -> Caller:
    """The caller with their stored user; 401 ``unknown_user`` when the user is gone.

    A token outlives its user (a guest that expired, an account removed): every route
    that takes a token checks that its user still exists, with one read kept for the
    rest of the request.
    """
    return Caller(caller.user_id, caller.name, caller.guest, svc.stored_user(caller.user_id))


def me(svc: Service, caller: Caller) -> JsonDict:
    """Profile, rating, preferences and invitations."""
    user = svc.user(caller)
    rating = None if user.guest else svc.store.get_ratings([user.id])[user.id]
    return wire.me(user, rating, live_invitations(svc, user.id))


def set_preferences(
    svc: Service,
    caller: Caller,
    mode: str | None,
    room_id: str | None,
    language: str | None = None,
) -> JsonDict:
    """Store what is given: the continue mode (applied now in the caller's hosted rooms and
    ``room_id``) and the interface language."""
    if mode is None and language is None:
        raise InvalidInput("give continue_mode or language", field="continue_mode")
    user = svc.user(caller)
    limits.hit(svc, limits.LOBBY_ACTION, caller.user_id)  # always accepted once valid
    if language is not None:
        svc.store.set_language(caller.user_id, language)
    else:
        language = user.language
    if mode is None:
        return {"preferences": wire.preferences(user.continue_mode, language)}
    svc.store.set_preferences(caller.user_id, mode)
    rooms = set(svc.store.open_rooms(caller.user_id))
    if room_id:
        rooms.add(room_id)
    for rid in sorted(rooms):

        def change(room: Room) -> list[Event]:
            seat = room.player_of_user(caller.user_id)
            if seat is None or room.status not in (Status.WAITING, Status.PLAYING):
                return []
            return game_flow.set_continue_mode(room, seat.id, mode, svc.deps.roller, svc.now())

        try:
            svc.change_room(rid, change)
        except ServiceError:
            continue
    return {"preferences": wire.preferences(mode, language)}


def ticket(svc: Service, caller: Caller) -> JsonDict:
    """A single-use WebSocket ticket (limited per user: each opens one connection)."""
    limits.hit(svc, limits.TICKET, caller.user_id)
    t = auth.new_ticket(svc.now())
    svc.store.put_ticket(t.ticket, caller.user_id, t.expires_ms)
    return wire.ticket(t.ticket, t.expires_ms)
