"""A bad configuration value stops ``liars-dice serve`` with one line naming it, status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.local.support import REPO


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path), **extra}


def test_a_bad_setting_stops_the_server_with_one_line_and_status_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "liars_local.cli", "serve", "--port", "0", "--workers", "1"],
        cwd=REPO,
        env=_env(tmp_path, MAX_PLAYERS_PER_ROOM="abc"),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert "MAX_PLAYERS_PER_ROOM" in done.stderr and "'abc'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_bad_setting_stops_a_multi_worker_server_the_same_way(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "liars_local.cli", "serve", "--port", "0", "--workers", "2"],
        cwd=REPO,
        env=_env(tmp_path, BOT_THINK_MIN_MS="900", BOT_THINK_MAX_MS="10"),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 2
    assert done.stderr == (
        "liars-dice: configuration error: BOT_THINK_MIN_MS must not exceed BOT_THINK_MAX_MS\n"
    )
