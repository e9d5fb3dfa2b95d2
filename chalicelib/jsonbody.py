"""JSON from clients, with a limit on nesting depth.

Python's parser recurses once per level: a body of a few thousand brackets raises
``RecursionError``, and deep values cost every later walk over them. No request of the API
nests more than a few levels, so anything deeper than ``MAX_DEPTH`` is refused like any
other malformed body (400 ``invalid_json``), on REST and WebSocket alike.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted (the API's bodies use 3 at most)."""


class TooDeep(ValueError):
    """The JSON nests deeper than ``MAX_DEPTH``."""


def depth(data: Any) -> int:
    """How deeply ``data`` nests arrays and objects (0 for a scalar), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            return level
        stack.extend((child, level) for child in children)
    return deepest


def loads(text: str | bytes) -> Any:
    """``json.loads``; raise ``TooDeep`` past ``MAX_DEPTH`` levels, ``ValueError`` if invalid."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise TooDeep(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    if depth(data) > MAX_DEPTH:
        raise TooDeep(f"JSON nested deeper than {MAX_DEPTH} levels")
    return data
