"""Notifications to a user's browsers and devices: what to say (as data) and how it is sent.

A notification is an effect of a committed change (``effects.Notify``), planned like the
pushes to open connections and run after the commit. Its message is the documented JSON
(docs/API.md, "Notifications"): ``{"type", "room_id", "rules", "title", "body"}``; it says
what happened and where, never any dice.

When (``effects.plan`` decides, this module words it):

- ``your_turn``: the turn passes to a human in a correspondence room (not to the one who just
  moved), or in a live room to a human with no connection watching it;
- ``invited``: a host invites a registered user;
- ``match_found``: quick play seated the user (``match_found_effect``, for the quick-play use
  case to plan after its commit).

``Deliverer`` is the ``ports.PushNotifier`` the wiring gives the effects: it reads the user's
subscriptions and devices, sends to each (Web Push through ``chalicelib.webpush``, mobile
through the ``ports.MobilePush`` adapter), and forgets each one the push service reports as
gone (404/410, or a disabled SNS endpoint). Counted as metrics ``NotificationSent``,
``NotificationFailed`` and ``NotificationForgotten`` (dimension ``channel``: web or mobile).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from chalicelib import observability
from chalicelib.ports import DeviceRecord, MobilePush, NotificationStore, PushSubscriptionRecord
from chalicelib.webpush import PushTarget, WebPushSender

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
Kind = Literal["your_turn", "match_found", "invited"]


def game_name(rules: str) -> str:
    """A rule system's name as a notification says it (``wild-stars`` → ``Wild Stars``)."""
    return rules.replace("-", " ").title()


INVITED_TTL_S = 24 * 3600
MATCH_TTL_S = 120


@dataclass(frozen=True)
class Notify:
    """Tell ``user_id`` something on every browser and device they registered.

    ``unless_watching``: skip it when a connection of the user watches ``room_id`` (a live
    room's turn: whoever has the table open sees it already)."""

    user_id: str
    room_id: str
    message: JsonDict = field(hash=False)
    ttl: int
    urgency: Literal["very-low", "low", "normal", "high"]
    unless_watching: bool = False


def message(kind: Kind, room_id: str, rules: str, title: str, body: str) -> JsonDict:
    """The documented payload (docs/API.md): nothing else ever goes into a notification."""
    return {"type": kind, "room_id": room_id, "rules": rules, "title": title, "body": body}


def your_turn(
    user_id: str, room_id: str, rules: str, pace: str, turn_seconds: int, mover: str | None
) -> Notify:
    """It became ``user_id``'s turn (``mover``: the name of who played last, if anyone)."""
    game = game_name(rules)
    said = f"{mover} played. " if mover else ""
    if pace == "correspondence":
        hours = turn_seconds // 3600
        body = f"{said}It is your turn in {game} (you have {hours} h)."
        return Notify(
            user_id,
            room_id,
            message("your_turn", room_id, rules, "Your turn", body),
            ttl=turn_seconds,
            urgency="normal",
        )
    body = f"{said}It is your turn in {game} ({turn_seconds} s)."
    return Notify(
        user_id,
        room_id,
        message("your_turn", room_id, rules, "Your turn", body),
        ttl=turn_seconds,
        urgency="high",
        unless_watching=True,
    )


def invited_effect(user_id: str, room_id: str, rules: str, host_name: str) -> Notify:
    """``host_name`` invited ``user_id`` to ``room_id``."""
    game = game_name(rules)
    body = f"{host_name} invited you to a table of {game}."
    return Notify(
        user_id,
        room_id,
        message("invited", room_id, rules, "You are invited", body),
        ttl=INVITED_TTL_S,
        urgency="normal",
    )


def match_found_effect(user_id: str, room_id: str, rules: str) -> Notify:
    """Quick play seated ``user_id`` at ``room_id``: plan it after the match's commit and run
    it with ``effects.run`` (the quick-play use case's part; no dice, no other names)."""
    game = game_name(rules)
    return Notify(
        user_id,
        room_id,
        message("match_found", room_id, rules, "Match found", f"Your {game} table is ready."),
        ttl=MATCH_TTL_S,
        urgency="high",
    )


class Deliverer:
    """Sends a notification to every subscription and device of a user (``PushNotifier``)."""

    def __init__(
        self,
        store: NotificationStore,
        web: WebPushSender | Callable[[], WebPushSender] | None,
        mobile: MobilePush | None = None,
    ) -> None:
        self.store = store
        self._web_source = web
        self._sender: WebPushSender | None = web if isinstance(web, WebPushSender) else None
        self._lock = threading.Lock()
        self.mobile = mobile

    @property
    def web(self) -> WebPushSender | None:
        """The Web Push sender, made on first use (its key may come from a secret store)."""
        if self._sender is None and callable(self._web_source):
            with self._lock:
                if self._sender is None:
                    self._sender = self._web_source()
        return self._sender

    def notify(self, user_id: str, message: JsonDict, *, ttl: int, urgency: str) -> int:
        """Send ``message``; the number of browsers and devices that accepted it."""
        sent = 0
        if self._web_source is not None:
            for sub in self.store.push_subscriptions(user_id):
                sent += self._web(user_id, sub, message, ttl, urgency)
        if self.mobile is not None:
            for device in self.store.devices(user_id):
                sent += self._mobile(user_id, device, message, ttl)
        return sent

    def _web(
        self, user_id: str, sub: PushSubscriptionRecord, msg: JsonDict, ttl: int, urgency: str
    ) -> int:
        target = PushTarget(sub.endpoint, sub.p256dh, sub.auth)
        try:
            web = self.web
            assert web is not None
            delivery = web.send(target, msg, ttl=ttl, urgency=urgency)  # type: ignore[arg-type]
        except Exception:
            log.exception("web push to a subscription of %s failed", user_id)
            observability.count("NotificationFailed", dimension=("channel", "web"))
            return 0
        return self._outcome(
            "web",
            delivery.outcome,
            lambda: self.store.delete_push_subscription(user_id, sub.endpoint),
        )

    def _mobile(self, user_id: str, device: DeviceRecord, msg: JsonDict, ttl: int) -> int:
        assert self.mobile is not None
        try:
            outcome = self.mobile.send(device, msg, ttl)
        except Exception:
            log.exception("mobile push to a device of %s failed", user_id)
            observability.count("NotificationFailed", dimension=("channel", "mobile"))
            return 0

        def forget() -> None:
            gone = self.store.delete_device(user_id, device.token)
            if gone is not None and self.mobile is not None:
                self.mobile.unregister(gone)

        return self._outcome("mobile", outcome, forget)

    def _outcome(self, channel: str, outcome: str, forget: Any) -> int:
        if outcome == "sent":
            observability.count("NotificationSent", dimension=("channel", channel))
            return 1
        if outcome == "gone":
            observability.count("NotificationForgotten", dimension=("channel", channel))
            try:
                forget()
            except Exception:
                log.exception("forgetting a gone %s subscription failed", channel)
            return 0
        observability.count("NotificationFailed", dimension=("channel", channel))
        return 0
