"""What a notification says, in each interface language (English, Spanish, Portuguese).

A notification is written in the language the user chose (``PATCH /me/preferences``,
``language``), else in English. Each sentence is whole in each language (no sentence is
assembled from fragments), and each rule system is called by its own ``labels``, the names the web client gives it
(``web/systems/<name>.i18n.json``, ``<name>.label``; a test holds the two together).

The values filled in (a player's name, a number of hours or seconds) are data: templates are
formatted once, and what a user typed is never read as a template.
"""

from __future__ import annotations

from typing import Literal

from chalicelib.engine.systems import SYSTEMS

Language = Literal["en", "es", "pt-BR"]
LANGUAGES: tuple[Language, ...] = ("en", "es", "pt-BR")

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "your_turn.title": "Your turn",
        "your_turn.hours": "It is your turn in {game} (you have {hours} h).",
        "your_turn.hours.after": "{mover} played. It is your turn in {game} (you have {hours} h).",
        "your_turn.seconds": "It is your turn in {game} ({seconds} s).",
        "your_turn.seconds.after": "{mover} played. It is your turn in {game} ({seconds} s).",
        "invited.title": "You are invited",
        "invited.body": "{host} invited you to a table of {game}.",
        "match_found.title": "Match found",
        "match_found.body": "Your {game} table is ready.",
    },
    "es": {
        "your_turn.title": "Tu turno",
        "your_turn.hours": "Te toca en {game} (tienes {hours} h).",
        "your_turn.hours.after": "{mover} ha jugado. Te toca en {game} (tienes {hours} h).",
        "your_turn.seconds": "Te toca en {game} ({seconds} s).",
        "your_turn.seconds.after": "{mover} ha jugado. Te toca en {game} ({seconds} s).",
        "invited.title": "Tienes una invitación",
        "invited.body": "{host} te ha invitado a una mesa de {game}.",
        "match_found.title": "Partida encontrada",
        "match_found.body": "Tu mesa de {game} está lista.",
    },
    "pt-BR": {
        "your_turn.title": "Sua vez",
        "your_turn.hours": "É a sua vez em {game} (você tem {hours} h).",
        "your_turn.hours.after": "{mover} jogou. É a sua vez em {game} (você tem {hours} h).",
        "your_turn.seconds": "É a sua vez em {game} ({seconds} s).",
        "your_turn.seconds.after": "{mover} jogou. É a sua vez em {game} ({seconds} s).",
        "invited.title": "Você foi convidado",
        "invited.body": "{host} convidou você para uma mesa de {game}.",
        "match_found.title": "Partida encontrada",
        "match_found.body": "Sua mesa de {game} está pronta.",
    },
}


def language_or_english(language: str | None) -> str:
    """The language to write in: the user's, when it is one of ours, else English."""
    return language if language in TEXTS else "en"


def game_name(rules: str, language: str = "en") -> str:
    """A rule system's name for people in ``language`` (its ``labels``; else English; else
    its id, spaced and capitalised)."""
    system = SYSTEMS.get(rules)
    labels = system.labels if system is not None else {}
    return (
        labels.get(language_or_english(language))
        or labels.get("en")
        or rules.replace("-", " ").title()
    )


def say(key: str, language: str, rules: str, **values: str | int) -> str:
    """The sentence ``key`` in ``language`` with ``values`` (and ``game``) filled in."""
    lang = language_or_english(language)
    return TEXTS[lang][key].format(game=game_name(rules, lang), **values)
