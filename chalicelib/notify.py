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
from chalicelib.notify_words import language_or_english, say
from chalicelib.ports import (
    DeviceRecord,
    MobilePush,
    NotificationStore,
    PushSubscriptionRecord,
    UserStore,
)
from chalicelib.webpush import PushTarget, WebPushSender

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]
Kind = Literal["your_turn", "match_found", "invited"]


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


class Message(dict[str, Any]):
    """A notification's payload, in English, that can be said in the user's language.

    It is the documented payload (a plain mapping to whoever reads it); the ``Deliverer`` asks
    ``in_language`` for the words of the user's chosen language before sending."""

    def __init__(
        self, kind: Kind, room_id: str, rules: str, title: str, body: str, **values: str | int
    ) -> None:
        self.kind, self.room_id, self.rules = kind, room_id, rules
        self.sentences, self.filled = (title, body), values
        super().__init__(self.in_language("en"))

    def in_language(self, language: str | None) -> JsonDict:
        """The payload with its title and body in ``language`` (English when unknown)."""
        lang = language_or_english(language)
        title, body = (say(key, lang, self.rules, **self.filled) for key in self.sentences)
        return message(self.kind, self.room_id, self.rules, title, body)


def your_turn(
    user_id: str, room_id: str, rules: str, pace: str, turn_seconds: int, mover: str | None
) -> Notify:
    """It became ``user_id``'s turn (``mover``: the name of who played last, if anyone)."""
    after = ".after" if mover else ""
    moved: dict[str, str | int] = {"mover": mover} if mover else {}
    if pace == "correspondence":
        words = Message(
            "your_turn",
            room_id,
            rules,
            "your_turn.title",
            f"your_turn.hours{after}",
            hours=turn_seconds // 3600,
            **moved,
        )
        return Notify(user_id, room_id, words, ttl=turn_seconds, urgency="normal")
    words = Message(
        "your_turn",
        room_id,
        rules,
        "your_turn.title",
        f"your_turn.seconds{after}",
        seconds=turn_seconds,
        **moved,
    )
    return Notify(user_id, room_id, words, ttl=turn_seconds, urgency="high", unless_watching=True)


def invited_effect(user_id: str, room_id: str, rules: str, host_name: str) -> Notify:
    """``host_name`` invited ``user_id`` to ``room_id``."""
    words = Message("invited", room_id, rules, "invited.title", "invited.body", host=host_name)
    return Notify(user_id, room_id, words, ttl=INVITED_TTL_S, urgency="normal")


def match_found_effect(user_id: str, room_id: str, rules: str) -> Notify:
    """Quick play seated ``user_id`` at ``room_id``: plan it after the match's commit and run
    it with ``effects.run`` (the quick-play use case's part; no dice, no other names)."""
    words = Message("match_found", room_id, rules, "match_found.title", "match_found.body")
    return Notify(user_id, room_id, words, ttl=MATCH_TTL_S, urgency="high")


def stored_language(users: UserStore) -> Callable[[str], str | None]:
    """Reads a user's chosen language from the user store (None: never chosen, or unknown)."""

    def language_of(user_id: str) -> str | None:
        user = users.get_user(user_id)
        return user.language if user is not None else None

    return language_of


class Deliverer:
    """Sends a notification to every subscription and device of a user (``PushNotifier``)."""

    def __init__(
        self,
        store: NotificationStore,
        web: WebPushSender | Callable[[], WebPushSender] | None,
        mobile: MobilePush | None = None,
        language_of: Callable[[str], str | None] | None = None,
    ) -> None:
        self.store = store
        self.language_of = language_of
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
        """Send ``message`` (in the user's language when it is a ``Message``); the number of
        browsers and devices that accepted it. The language is read only for a user with
        somewhere to send to."""
        subs = self.store.push_subscriptions(user_id) if self._web_source is not None else []
        devices = self.store.devices(user_id) if self.mobile is not None else []
        if not subs and not devices:
            return 0
        worded = self._in_language(user_id, message)
        sent = 0
        for sub in subs:
            sent += self._web(user_id, sub, worded, ttl, urgency)
        for device in devices:
            sent += self._mobile(user_id, device, worded, ttl)
        return sent

    def _in_language(self, user_id: str, message: JsonDict) -> JsonDict:
        """``message`` in ``user_id``'s chosen language (English if none, or unreadable)."""
        if not isinstance(message, Message) or self.language_of is None:
            return message
        try:
            language = self.language_of(user_id)
        except Exception:
            log.exception("reading the language of %s failed; writing in English", user_id)
            language = None
        return message.in_language(language)

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
