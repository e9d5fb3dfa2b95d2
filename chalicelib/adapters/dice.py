"""The production dice roller: the operating system's CSPRNG (``secrets``), read in blocks.

It implements the engine's ``Roller`` protocol (``chalicelib.engine.dice``); it lives here,
not in the engine, because it reads the operating system and hooks ``fork``.
"""

from __future__ import annotations

import os
import secrets
import threading
import weakref

from chalicelib.engine.state import WILD, Die

BLOCK_BYTES = 256
"""Bytes of the operating system's CSPRNG a ``SecretsRoller`` reads at once."""


class SecretsRoller:
    """The production roller: the operating system's CSPRNG (``secrets``), read in blocks.

    ``secrets.randbelow`` makes one ``os.urandom`` system call per draw; this roller reads
    ``BLOCK_BYTES`` at a time and spends one byte per draw (below 256), so a round's dice cost
    one call, not one per die. Each draw is exactly uniform: a byte at or above the largest
    multiple of ``n`` (``256 - 256 % n``) is thrown away and the next one taken (rejection, as
    ``randbelow`` does with bits), never folded in with a modulo bias. Bytes are never reused;
    a forked process drops the block it inherited, so parent and child never deal the same
    dice. Thread-safe (one lock around the block).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._block = b""
        self._next = 0
        _ROLLERS.add(self)

    def _forget(self) -> None:
        """Drop the unread bytes (a forked child must not deal its parent's dice)."""
        self._lock = threading.Lock()
        self._block, self._next = b"", 0

    def _below(self, n: int) -> int:
        if not 0 < n <= 256:
            return secrets.randbelow(n)
        limit = 256 - 256 % n
        with self._lock:
            while True:
                if self._next >= len(self._block):
                    self._block, self._next = secrets.token_bytes(BLOCK_BYTES), 0
                byte = self._block[self._next]
                self._next += 1
                if byte < limit:
                    return byte % n

    def die(self, wildcard_chance: int) -> Die:
        """Each die independently becomes ``*`` with the room's wildcard chance."""
        if wildcard_chance and self._below(100) < wildcard_chance:
            return WILD
        return self._below(6) + 1

    def below(self, n: int) -> int:
        """Uniform pick."""
        return self._below(n)


_ROLLERS: weakref.WeakSet[SecretsRoller] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for roller in list(_ROLLERS):
        roller._forget()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)
