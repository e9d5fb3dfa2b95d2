"""The local server's storage: a data folder that survives restarts, a token secret made once,
parallel requests on SQLite that still give one winner per turn, and a busy port."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from liars_local.environment import (
    DB_FILE_NAME,
    SECRET_FILE_NAME,
    default_data_dir,
    load_or_create_secret,
)
from liars_local.server import LocalServer, PortInUse
from tests.local.support import PASSWORD, REPO, auth, ok


def test_register_restart_log_in_and_find_the_room_again(tmp_path: Path) -> None:
    with LocalServer(data_dir=tmp_path, access_log=lambda _: None) as first:
        out = ok(
            httpx.post(
                f"{first.url}/auth/register", json={"username": "Alice", "password": PASSWORD}
            ),
            201,
        )
        old_token = out["token"]
        room_id = ok(
            httpx.post(f"{first.url}/rooms", json={"settings": {}}, headers=auth(old_token)),
            201,
        )["id"]

    assert (tmp_path / DB_FILE_NAME).is_file()
    with LocalServer(data_dir=tmp_path, access_log=lambda _: None) as second:
        # the session survives: the token secret is the data folder's, not a new one
        me = ok(httpx.get(f"{second.url}/me", headers=auth(old_token)))
        assert me["user"]["name"] == "Alice"
        login = ok(
            httpx.post(f"{second.url}/auth/login", json={"username": "alice", "password": PASSWORD})
        )
        lobby = ok(httpx.get(f"{second.url}/rooms", headers=auth(login["token"])))
        room = ok(httpx.get(f"{second.url}/rooms/{room_id}", headers=auth(login["token"])))

    assert room_id in [r["id"] for r in lobby["rooms"]]
    assert room["id"] == room_id and room["status"] == "waiting"


def test_a_server_without_a_data_folder_keeps_nothing(tmp_path: Path) -> None:
    with LocalServer(access_log=lambda _: None) as server:
        assert server.data_dir is not None and server.db_path is not None
        folder = server.data_dir
        assert server.db_path.is_file()
    assert not folder.exists()


def test_token_secret_is_made_once_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    first = load_or_create_secret(folder)
    mode = stat.S_IMODE(os.stat(folder / SECRET_FILE_NAME).st_mode)

    assert mode == 0o600
    assert len(first) >= 32
    assert load_or_create_secret(folder) == first
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700


def test_a_readable_token_secret_file_is_made_owner_only_again(tmp_path: Path) -> None:
    secret = "k" * 40
    (tmp_path / SECRET_FILE_NAME).write_text(secret + "\n")
    os.chmod(tmp_path / SECRET_FILE_NAME, 0o644)

    assert load_or_create_secret(tmp_path) == secret
    assert stat.S_IMODE(os.stat(tmp_path / SECRET_FILE_NAME).st_mode) == 0o600


def test_a_short_token_secret_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / SECRET_FILE_NAME).write_text("short\n")
    with pytest.raises(ValueError, match="delete it"):
        load_or_create_secret(tmp_path)


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("linux", {"HOME": "/home/a", "XDG_DATA_HOME": "/xdg"}, "/xdg/liars-lies"),
        ("linux", {"HOME": "/home/a"}, "/home/a/.local/share/liars-lies"),
        ("linux", {"HOME": "/home/a", "XDG_DATA_HOME": "rel"}, "/home/a/.local/share/liars-lies"),
        ("darwin", {"HOME": "/Users/a"}, "/Users/a/Library/Application Support/liars-lies"),
        ("win32", {"HOME": "/h", "APPDATA": "/roaming"}, "/roaming/liars-lies"),
    ],
)
def test_default_data_folder_follows_the_platform(
    platform: str, env: dict[str, str], expected: str
) -> None:
    assert default_data_dir(platform, env) == Path(expected)


# --- parallel requests on SQLite ------------------------------------------------------------


def _race(url: str, action: dict[str, Any], token: str, n: int = 12) -> list[int]:
    """Send the same action from ``n`` threads at once; their status codes."""
    statuses: list[int] = []
    barrier = threading.Barrier(n)

    def send() -> None:
        with httpx.Client(timeout=30) as client:
            barrier.wait()
            answer = client.post(url, json=action, headers=auth(token))
        statuses.append(answer.status_code)

    threads = [threading.Thread(target=send) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def test_parallel_actions_on_one_turn_have_exactly_one_winner_per_turn(tmp_path: Path) -> None:
    with LocalServer(data_dir=tmp_path, access_log=lambda _: None) as server:
        assert server.runner is not None and not server.runner.serialized
        tokens = [
            ok(
                httpx.post(
                    f"{server.url}/auth/register", json={"username": name, "password": PASSWORD}
                ),
                201,
            )["token"]
            for name in ("racer1", "racer2")
        ]
        room_id = ok(
            httpx.post(
                f"{server.url}/rooms",
                json={"settings": {"starting_dice": 10}},
                headers=auth(tokens[0]),
            ),
            201,
        )["id"]
        ok(httpx.post(f"{server.url}/rooms/{room_id}/join", json={}, headers=auth(tokens[1])))
        ok(
            httpx.put(
                f"{server.url}/rooms/{room_id}/ready",
                json={"ready": True},
                headers=auth(tokens[1]),
            )
        )
        ok(httpx.post(f"{server.url}/rooms/{room_id}/start", headers=auth(tokens[0])))

        for _ in range(4):
            views = [
                ok(httpx.get(f"{server.url}/rooms/{room_id}", headers=auth(t))) for t in tokens
            ]
            turn = views[0]["game"]["turn"]
            mover = next(
                i for i, v in enumerate(views) if v["me"]["player_id"] == turn["player_id"]
            )
            bid = views[0]["game"]["current_bid"] or {"quantity": 0, "face": 2}
            action = {
                "type": "bid",
                "quantity": bid["quantity"] + 1,
                "face": bid["face"],
                "turn": turn["number"],
            }
            statuses = _race(f"{server.url}/rooms/{room_id}/actions", action, tokens[mover])

            assert statuses.count(200) == 1, statuses
            assert set(statuses) == {200, 409}, statuses
            after = ok(httpx.get(f"{server.url}/rooms/{room_id}", headers=auth(tokens[0])))
            assert after["version"] == views[0]["version"] + 1


# --- the command line -----------------------------------------------------------------------


def test_a_busy_port_gets_a_one_line_hint_not_a_traceback(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(PortInUse, match=f"port {port} in use; try --port 0"):
            LocalServer(port=port, data_dir=tmp_path).prepare()
        done = subprocess.run(
            [sys.executable, "-m", "liars_local.cli", "serve", "--port", str(port)],
            cwd=REPO,
            env={**os.environ, "XDG_DATA_HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        taken.close()

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"liars-dice: port {port} in use; try --port 0\n"
    assert not (tmp_path / "liars-lies").exists()  # nothing was set up
