"""``LIARS_PROFILE_DIR``: the serving threads' CPU profiles (liars_local.profiling)."""

from __future__ import annotations

import os
import pstats
import threading
import time
from pathlib import Path

import pytest

from liars_local import profiling


def _busy() -> int:
    return sum(i * i for i in range(20_000))


def test_unset_profiles_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(profiling.ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    with profiling.profiled("quiet"):
        _busy()
    assert list(tmp_path.iterdir()) == []


def test_a_profiled_thread_writes_its_profile_when_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(profiling.ENV, str(tmp_path))
    with profiling.profiled("handler"):
        _busy()
    (written,) = tmp_path.glob(f"{os.getpid()}-handler-*.prof")
    names = {name for _, _, name in pstats.Stats(str(written)).stats}  # type: ignore[attr-defined]
    assert "_busy" in names


def test_a_running_thread_writes_its_profile_so_far_on_the_dump_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(profiling.ENV, str(tmp_path))
    stop = threading.Event()

    def serve() -> None:
        with profiling.profiled("loop"):
            _busy()
            stop.wait(10)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        (tmp_path / "dump").touch()
        end = time.monotonic() + 5
        while not list(tmp_path.glob("*-loop-*.prof")) and time.monotonic() < end:
            time.sleep(0.05)
        (written,) = tmp_path.glob("*-loop-*.prof")
        assert thread.is_alive()  # written while it still runs
        names = {name for _, _, name in pstats.Stats(str(written)).stats}  # type: ignore[attr-defined]
        assert "_busy" in names
    finally:
        stop.set()
        thread.join(5)
