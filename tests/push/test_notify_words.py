"""What notifications say in each language: whole sentences, the web client's game names,
and the user's choice (English when there is none, or it cannot be read)."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest

from chalicelib import notify, notify_words
from chalicelib.engine.systems import SYSTEMS
from chalicelib.ports import DeviceRecord

WEB = Path(__file__).resolve().parents[2] / "web" / "systems"


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_language_has_every_sentence_with_the_same_blanks() -> None:
    english = notify_words.TEXTS["en"]
    for language in notify_words.LANGUAGES:
        texts = notify_words.TEXTS[language]
        assert texts.keys() == english.keys(), language
        for key, template in texts.items():
            assert _fields(template) == _fields(english[key]), (language, key)


@pytest.mark.parametrize("rules", sorted(SYSTEMS))
def test_game_names_are_the_web_clients_labels(rules: str) -> None:
    labels = json.loads((WEB / f"{rules}.i18n.json").read_text())
    for language in notify_words.LANGUAGES:
        assert notify_words.game_name(rules, language) == labels[language][f"{rules}.label"]


def test_a_message_is_english_until_said_in_the_users_language() -> None:
    turn = notify.your_turn("u1", "r1", "wild-stars", "correspondence", 24 * 3600, "ana")
    assert dict(turn.message) == {
        "type": "your_turn",
        "room_id": "r1",
        "rules": "wild-stars",
        "title": "Your turn",
        "body": "ana played. It is your turn in Wild Stars (you have 24 h).",
    }
    assert isinstance(turn.message, notify.Message)
    spanish = turn.message.in_language("es")
    assert spanish["body"] == "ana ha jugado. Te toca en Estrellas Salvajes (tienes 24 h)."
    assert turn.message.in_language("klingon") == dict(turn.message)
    live = notify.your_turn("u1", "r1", "perudo", "live", 30, None)
    assert isinstance(live.message, notify.Message)
    assert live.message.in_language("pt-BR")["body"] == "É a sua vez em Perudo (30 s)."


def test_a_name_with_braces_is_data_not_a_template() -> None:
    invite = notify.invited_effect("u1", "r1", "classic", "{game}{0}")
    assert invite.message["body"] == "{game}{0} invited you to a table of Classic."
    assert isinstance(invite.message, notify.Message)
    assert re.search(r"\{game\}\{0\} te ha", invite.message.in_language("es")["body"])


class _Store:
    def __init__(self) -> None:
        self.devices_of: dict[str, list[DeviceRecord]] = {}

    def push_subscriptions(self, user_id: str) -> list[object]:
        return []

    def devices(self, user_id: str) -> list[DeviceRecord]:
        return self.devices_of.get(user_id, [])


class _Mobile:
    def __init__(self) -> None:
        self.sent: list[dict[str, object]] = []

    def send(self, device: DeviceRecord, message: dict[str, object], ttl: int) -> str:
        self.sent.append(message)
        return "sent"


def _deliverer(languages: dict[str, str | None] | Exception) -> tuple[notify.Deliverer, _Mobile]:
    store, mobile = _Store(), _Mobile()
    store.devices_of["u1"] = [DeviceRecord("fcm", "token-1", "arn:1", 0)]
    asked: list[str] = []

    def language_of(user_id: str) -> str | None:
        asked.append(user_id)
        if isinstance(languages, Exception):
            raise languages
        return languages.get(user_id)

    deliverer = notify.Deliverer(store, None, mobile, language_of)  # type: ignore[arg-type]
    deliverer.asked = asked  # type: ignore[attr-defined]
    return deliverer, mobile


def test_the_deliverer_writes_in_the_users_language_and_reads_it_only_when_it_sends() -> None:
    deliverer, mobile = _deliverer({"u1": "es"})
    match = notify.match_found_effect("u1", "r1", "poker")
    assert deliverer.notify("u1", match.message, ttl=60, urgency="high") == 1
    assert mobile.sent[-1]["body"] == "Tu mesa de Póquer mentiroso está lista."
    # a user with nowhere to send to costs no read of their language
    assert deliverer.notify("u2", match.message, ttl=60, urgency="high") == 0
    assert deliverer.asked == ["u1"]  # type: ignore[attr-defined]


def test_an_unreadable_language_is_english_and_the_notification_still_goes() -> None:
    deliverer, mobile = _deliverer(RuntimeError("store down"))
    match = notify.match_found_effect("u1", "r1", "classic")
    assert deliverer.notify("u1", match.message, ttl=60, urgency="high") == 1
    assert mobile.sent[-1]["title"] == "Match found"
