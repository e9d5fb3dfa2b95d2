"""The production roller: the OS's CSPRNG read in blocks, exactly uniform, never replayed."""

from __future__ import annotations

import os
import secrets
from collections import Counter
from collections.abc import Iterator

import pytest

from chalicelib.adapters import dice
from chalicelib.adapters.dice import BLOCK_BYTES, SecretsRoller
from chalicelib.engine.state import WILD


def _scripted_blocks(monkeypatch: pytest.MonkeyPatch, *blocks: bytes) -> list[int]:
    """Make ``secrets.token_bytes`` hand out ``blocks`` in turn; the sizes asked are returned."""
    asked: list[int] = []
    source: Iterator[bytes] = iter(blocks)

    def token_bytes(n: int | None = None) -> bytes:
        asked.append(n or 0)
        return next(source)

    monkeypatch.setattr(dice.secrets, "token_bytes", token_bytes)
    return asked


def test_a_byte_at_or_above_the_largest_multiple_is_thrown_away_not_folded_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # For a die (n = 6) the largest multiple of 6 under 256 is 252: 252-255 would favour 1-4.
    _scripted_blocks(monkeypatch, bytes([255, 252, 251, 3, 6]))
    roller = SecretsRoller()
    assert roller.die(0) == 251 % 6 + 1
    assert roller.die(0) == 3 + 1
    assert roller.die(0) == 6 % 6 + 1


def test_the_wildcard_draw_is_a_percent_from_its_own_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    # below(100) rejects 200-255; 4 < 10 makes a wildcard, 10 does not (then 0 -> face 1).
    _scripted_blocks(monkeypatch, bytes([230, 4, 10, 0]))
    roller = SecretsRoller()
    assert roller.die(10) == WILD
    assert roller.die(10) == 1


def test_a_block_serves_many_dice_with_one_read(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real = secrets.token_bytes

    def counting(n: int | None = None) -> bytes:
        reads.append(n or 0)
        return real(n)

    monkeypatch.setattr(dice.secrets, "token_bytes", counting)
    roller = SecretsRoller()
    for _ in range(1000):
        roller.die(10)
    # Two bytes per die at most (wildcard draw, face) plus rejections: a handful of blocks.
    assert reads and set(reads) == {BLOCK_BYTES}
    assert len(reads) <= 12


def test_large_ranges_fall_back_to_randbelow(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _scripted_blocks(monkeypatch)
    roller = SecretsRoller()
    picks = {roller.below(1000) for _ in range(200)}
    assert asked == []  # no block was read for them
    assert all(0 <= p < 1000 for p in picks) and len(picks) > 50


def test_every_face_and_the_wildcard_come_out_at_their_rates() -> None:
    roller = SecretsRoller()
    draws = 60_000
    counts = Counter(roller.die(10) for _ in range(draws))
    assert set(counts) == {WILD, 1, 2, 3, 4, 5, 6}
    # 10 % wildcards, the rest shared evenly; 6 standard deviations of slack (never flaky).
    for value, p in [(WILD, 0.10), *((face, 0.15) for face in range(1, 7))]:
        sd = (draws * p * (1 - p)) ** 0.5
        assert abs(counts[value] - draws * p) < 6 * sd, (value, counts[value])


def test_a_forked_child_drops_the_block_it_inherited() -> None:
    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    roller = SecretsRoller()
    roller.die(0)  # a block is read and mostly unread
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its first dice must not be the parent's next ones
        os.close(read)
        os.write(write, bytes(roller.below(256) for _ in range(32)))
        os._exit(0)
    os.close(write)
    child = b""
    while len(child) < 32:
        chunk = os.read(read, 32)
        if not chunk:
            break
        child += chunk
    os.close(read)
    os.waitpid(pid, 0)
    parent = bytes(roller.below(256) for _ in range(32))
    assert len(child) == 32
    assert child != parent
