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
