"""The use cases of the API, by area, around one core (``core.Service.change_room``).

- ``core``: ``Service`` (dependencies, settings, the one room change and its two policies),
  ``Committed``;
- ``accounts``, ``lobby``, ``invitations``, ``play``, ``records``, ``chat``: the use cases,
  functions taking a ``Service`` first; ``quickplay``: Play now and its matcher passes
  (``Quickplay(service)``);
- ``limits``: every rate limit as data; ``callers``: who is calling.

The handlers (``app.py``, ``chalicelib/realtime.py``) make a ``Service`` from their
dependencies and call one use case.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chalicelib.service.callers import Caller, caller_from_header, require, require_registered
    from chalicelib.service.core import Committed, Deps, RoomChange, Service, Then
    from chalicelib.service.limits import source_key

__all__ = [
    "Caller",
    "Committed",
    "Deps",
    "RoomChange",
    "Service",
    "Then",
    "caller_from_header",
    "require",
    "require_registered",
    "source_key",
]

_HOME = {
    "Caller": "callers",
    "caller_from_header": "callers",
    "require": "callers",
    "require_registered": "callers",
    "Committed": "core",
    "Deps": "core",
    "RoomChange": "core",
    "Service": "core",
    "Then": "core",
    "source_key": "limits",
}
"""Where each re-exported name lives. They are imported on first use (PEP 562), not when the
package is: ``chalicelib.errors`` reads ``chalicelib.service.errors`` at the Lambda's cold
start, and importing the core from here pulled the token code (PyJWT) and the effects into
every cold ``import app`` (bench/coldstart.py: about 0.2 s of a 0.7 s import)."""


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
