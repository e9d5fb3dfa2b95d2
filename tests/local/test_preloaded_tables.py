"""The local server reads the bots' endgame tables when it starts, not inside the first request
that meets an endgame (issue 32: read there, they were the tail of ``bench/local.py``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from chalicelib.engine import endgames
from liars_local.server import LocalServer


def _names() -> set[str]:
    folder = resources.files(endgames.__package__) / "endgames"
    return {e.name.removesuffix(".bin") for e in folder.iterdir() if e.name.endswith(".bin")}


def test_preload_reads_every_table_of_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(endgames, "_TABLES", {})
    assert endgames.preload() == len(_names()) > 0
    assert set(endgames._TABLES) == _names()
    assert all(t is not None and t.rows[0] for t in endgames._TABLES.values())


def test_a_started_local_server_holds_every_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(endgames, "_TABLES", {})
    with LocalServer(data_dir=tmp_path, access_log=lambda _: None):
        assert set(endgames._TABLES) == _names()
