"""Display names and chat text: what may be shown to other people (docs/API.md).

Standard library only (``unicodedata``). Names refuse control, format and bidirectional
characters, characters that draw nothing, names that draw nothing at all, and names that read
as a bot ("Bot 3" in any case, spacing or look-alike letters). ``skeleton`` is the form two
names are compared in: NFKC, case folded, with the Cyrillic and Greek letters that look like
Latin ones mapped to them (a small table of Unicode's confusables for the scripts that matter
for ASCII usernames; the full confusables data would weigh more than it catches here), so
"аdmin" with a Cyrillic а reads as "admin".

Chat strips control characters (a line break stays), bidirectional controls and other
invisible format characters; emoji sequences (zero-width joiner, variation selectors) keep.
"""

from __future__ import annotations

import re
import unicodedata

from chalicelib.errors import ApiError

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Arabic letter mark, LRM/RLM, embeddings and overrides, isolates."""
INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u034f\u17b4\u17b5")
"""Letters and symbols that draw nothing (Hangul fillers, Braille blank, Mongolian vowel
separator, combining grapheme joiner, Khmer inherent vowels)."""
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
_MARKS = frozenset({"Mn", "Me", "Mc"})
_KEPT_IN_CHAT = frozenset("\u200d\ufe0e\ufe0f")  # ZWJ and variation selectors (emoji)
MAX_MARKS = 4
"""Combining marks one character may carry: real writing stacks at most three or four
(Vietnamese two, Tibetan stacks), "Zalgo" text dozens, drawn over the lines around it."""

# Cyrillic and Greek lower-case letters that look like Latin ones (after case folding).
_CONFUSABLES = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "н": "h",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "к": "k",
        "м": "m",
        "о": "o",
        "р": "p",
        "ԛ": "q",
        "г": "r",
        "ѕ": "s",
        "т": "t",
        "у": "y",
        "х": "x",
        "ԁ": "d",
        "ԝ": "w",
        "ɡ": "g",
        "ı": "i",
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ω": "w",
        # small capitals and Cherokee letters that read as the letters of "bot"
        "\u0299": "b",
        "\u1d0f": "o",
        "\u1d1b": "t",
        "\u13f4": "b",
        "\u13fc": "b",
        "\u13a2": "t",
    }
)
_BOT_NAME = re.compile(r"b[o0]t\d*")
"""A bot's name once only letters and digits are left: "bot", a zero for the o, any digits."""
USERNAME_SHAPE = re.compile(r"[a-z0-9_-]{3,24}")


def skeleton(name: str) -> str:
    """The form names are compared in: NFKC, case folded, look-alike letters mapped, no marks."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    decomposed = unicodedata.normalize("NFD", folded.translate(_CONFUSABLES))
    plain = "".join(c for c in decomposed if unicodedata.category(c) not in _MARKS)
    return unicodedata.normalize("NFC", plain).translate(_CONFUSABLES).strip()


def reads_as_bot(name: str) -> bool:
    """True for "Bot", "Bot 3", "BOT-3", "b o t 3", "Ｂｏｔ３", "Bоt 3" (Cyrillic о), "B0t 1",
    "ʙᴏᴛ 3", "Bot #3", "[Bot 2]" …: spaces, punctuation and symbols around it do not count."""
    compact = "".join(c for c in skeleton(name) if c.isalnum())
    return _BOT_NAME.fullmatch(compact) is not None


def _bad_character(c: str) -> bool:
    return (
        c in BIDI_CONTROLS
        or c in INVISIBLE_LETTERS
        or unicodedata.category(c) in (_REFUSED_CATEGORIES)
    )


def _within_mark_limit(text: str) -> list[bool]:
    """For each character, whether it is kept: marks past ``MAX_MARKS`` on one character are
    not (a zero-width joiner between them does not start a new count)."""
    kept: list[bool] = []
    run = 0
    for c in text:
        if unicodedata.category(c) in _MARKS:
            run += 1
            kept.append(run <= MAX_MARKS)
        else:
            if c != "\u200d":
                run = 0
            kept.append(True)
    return kept


def check_display_name(raw: str, field: str = "name") -> str:
    """The name as it will be shown (spaces trimmed and collapsed), or a 400 naming the rule.

    Codes: ``invalid_name`` (control, format, bidirectional or invisible characters, spaces
    other than the plain one, or nothing visible) and ``name_reserved`` (reads as a bot).
    """
    name = unicodedata.normalize("NFC", raw)
    if any(_bad_character(c) for c in name):
        raise ApiError(
            400,
            "invalid_name",
            "names may not contain control, format, bidirectional or invisible characters",
            field=field,
        )
    if any(c.isspace() and c != " " for c in name):
        raise ApiError(400, "invalid_name", "names may only use plain spaces", field=field)
    if not all(_within_mark_limit(name)):
        raise ApiError(
            400,
            "invalid_name",
            f"names may stack at most {MAX_MARKS} accents or other marks on a character",
            field=field,
        )
    name = " ".join(name.split())
    visible = [c for c in name if not c.isspace() and unicodedata.category(c) not in _MARKS]
    if not visible:
        raise ApiError(400, "invalid_name", "a name needs a visible character", field=field)
    if reads_as_bot(name):
        raise ApiError(400, "name_reserved", "names like “Bot 3” belong to bots", field=field)
    return name


def username_lookalike(name: str) -> str | None:
    """The username a display name reads as (its skeleton, if shaped like a username)."""
    candidate = skeleton(name).replace(" ", "")
    return candidate if USERNAME_SHAPE.fullmatch(candidate) else None


def clean_chat(raw: str) -> str:
    """Chat text with control, bidirectional and invisible format characters removed, and
    marks past ``MAX_MARKS`` on one character.

    Line breaks (``\\n``; ``\\r\\n`` and ``\\r`` become ``\\n``) stay; so do the zero-width
    joiner and variation selectors that emoji are made of. Leading and trailing space goes.
    """
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    kept = []
    for c in text:
        if c == "\n" or c in _KEPT_IN_CHAT:
            kept.append(c)
        elif c == "\t":
            kept.append(" ")
        elif not _bad_character(c):
            kept.append(c)
    joined = "".join(kept)
    marked = _within_mark_limit(joined)
    out = "".join(c for c, keep in zip(joined, marked, strict=True) if keep).strip()
    # Nothing visible left (only spaces, marks or line breaks) is an empty message.
    if not any(not c.isspace() and unicodedata.category(c) not in _MARKS for c in out):
        return ""
    return out
