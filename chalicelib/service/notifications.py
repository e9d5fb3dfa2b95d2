"""Use cases of "my games" and notifications (docs/API.md, "Correspondence and my games",
"Notifications"): the caller's open rooms, the VAPID key, push subscriptions and devices.

Every use case acts on the caller's own records only: a subscription, a device or a seat is
looked up under the caller's user id, so no id in a request can reach another user's. The
functions take a ``Service`` first, like the other use cases.
"""

from __future__ import annotations

import logging
from typing import Any

from chalicelib.engine.model import Phase, Room, Status
from chalicelib.engine.views import iso
from chalicelib.notify import Deliverer
from chalicelib.ports import DeviceRecord, PushSubscriptionRecord
from chalicelib.push_endpoints import EndpointNotAllowed
from chalicelib.service.core import Service
from chalicelib.service.errors import InvalidInput, Unknown
from chalicelib.webpush import valid_keys

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]

MAX_SUBSCRIPTIONS = 10
"""Browsers per user; registering one more forgets the oldest (each is a request per turn)."""
MAX_DEVICES = 10
"""Mobile devices per user; registering one more forgets the oldest."""
OPEN = (Status.WAITING, Status.PLAYING)


def _push(svc: Service) -> Deliverer:
    push = getattr(svc.deps, "push", None)
    if not isinstance(push, Deliverer):
        raise Unknown("this server sends no notifications", code="push_not_configured")
    return push


# --- my games ----------------------------------------------------------------------------


def my_games(svc: Service, user_id: str) -> JsonDict:
    """Every waiting or playing room the user sits in, theirs to move first, then by deadline
    (soonest first), then most recently changed."""
    store = svc.store
    ids = store.seated_rooms(user_id)
    stored = store.get_rooms(ids) if ids else {}
    games: list[JsonDict] = []
    for rid in ids:
        found = stored.get(rid)
        room = Room.from_dict(found.state) if found is not None else None
        entry = _entry(room, user_id) if room is not None else None
        if entry is None:
            # A seat outlived its room (an after-commit step lost): repair the index.
            try:
                store.unseat(user_id, rid)
            except Exception:
                log.exception("dropping a stale seat of %s failed", user_id)
            continue
        games.append(entry)
    games.sort(key=lambda g: (not g["my_turn"], g["_deadline"] or 2**62, -g["_updated"]))
    for g in games:
        del g["_deadline"], g["_updated"]
    return {"games": games}


# --- Web Push ----------------------------------------------------------------------------


def vapid_public_key(svc: Service) -> JsonDict:
    web = _push(svc).web
    if web is None:
        raise Unknown("this server sends no Web Push", code="push_not_configured")
    return {"key": web.key.public_key}


def subscribe(
    svc: Service, user_id: str, endpoint: str, p256dh: str, auth: str
) -> tuple[bool, JsonDict]:
    """Store the caller's subscription; (created, answer). Refused unless the endpoint is on
    the operator's allow-list and the keys are a P-256 point and a 16-byte secret."""
    web = _push(svc).web
    if web is None:
        raise Unknown("this server sends no Web Push", code="push_not_configured")
    try:
        web.allow.check(endpoint)
    except EndpointNotAllowed as err:
        raise InvalidInput(str(err), code=err.code, field="endpoint") from None
    if not valid_keys(p256dh, auth):
        raise InvalidInput(
            "keys.p256dh must be a P-256 public key and keys.auth 16 bytes (base64url)",
            code="invalid_push_keys",
            field="keys",
        )
    store = svc.store
    record = PushSubscriptionRecord(endpoint, p256dh, auth, svc.now())
    created = store.put_push_subscription(user_id, record)
    held = store.push_subscriptions(user_id)
    for old in held[: max(0, len(held) - MAX_SUBSCRIPTIONS)]:
        store.delete_push_subscription(user_id, old.endpoint)
    return created, {"endpoint": endpoint}


def unsubscribe(svc: Service, user_id: str, endpoint: str) -> None:
    """Forget the caller's subscription at ``endpoint`` (204 whether or not it existed:
    deleting is idempotent, and another user's endpoint is never touched)."""
    svc.store.delete_push_subscription(user_id, endpoint)


# --- mobile devices ----------------------------------------------------------------------


def add_device(svc: Service, user_id: str, platform: str, token: str) -> tuple[bool, JsonDict]:
    mobile = _push(svc).mobile
    if mobile is None:
        raise Unknown("this server sends no mobile push", code="push_not_configured")
    try:
        arn = mobile.register(platform, token)
    except ValueError as err:  # the platform refused the token (sns_push.InvalidToken)
        raise InvalidInput(str(err), code="invalid_device_token", field="token") from None
    store = svc.store
    created = store.put_device(user_id, DeviceRecord(platform, token, arn, svc.now()))
    held = store.devices(user_id)
    for old in held[: max(0, len(held) - MAX_DEVICES)]:
        gone = store.delete_device(user_id, old.token)
        if gone is not None:
            mobile.unregister(gone)
    return created, {"platform": platform, "token": token}


def remove_device(svc: Service, user_id: str, token: str) -> None:
    gone = svc.store.delete_device(user_id, token)
    push = getattr(svc.deps, "push", None)
    if gone is not None and isinstance(push, Deliverer) and push.mobile is not None:
        try:
            push.mobile.unregister(gone)
        except Exception:
            log.exception("dropping a device's platform endpoint failed")


def _entry(room: Room, user_id: str) -> JsonDict | None:
    """The room as "my games" lists it for ``user_id``; None unless open with them seated."""
    seat = room.player_of_user(user_id)
    if room.status not in OPEN or seat is None:
        return None
    game = room.game
    playing = room.status == Status.PLAYING and game is not None
    my_turn = False
    deadline = turn_player = None
    updated = room.created_at
    if playing and game is not None:
        turn_player = game.turn_player
        deadline = game.deadline
        updated = max(updated, game.clock)
        if game.phase == Phase.BREAK:
            my_turn = seat.in_game and seat.id not in game.agreed
        else:
            my_turn = turn_player == seat.id
    return {
        "room_id": room.id,
        "rules": room.settings.rules,
        "status": room.status.value,
        "pace": room.settings.pace,
        "my_turn": my_turn,
        "deadline": iso(deadline) if deadline is not None else None,
        "turn_player_id": turn_player,
        "updated_at": iso(updated),
        "_deadline": deadline,
        "_updated": updated,
    }
