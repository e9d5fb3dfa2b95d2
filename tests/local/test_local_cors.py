"""``liars-dice serve --cors-origin``: the local server answers a page on another origin as the
deployed API does (the same app code, and the server's own 404/413 with the same headers)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.local.support import REPO

FRONTEND = "http://localhost:5173"
OTHER = "https://evil.example"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path), **extra}
    env.pop("CORS_ALLOW_ORIGINS", None)
    return env


@pytest.fixture(scope="module")
def cors_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp_path = tmp_path_factory.mktemp("cors")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "liars_local.cli",
            "serve",
            "--port",
            "0",
            "--workers",
            "1",
            "--cors-origin",
            FRONTEND,
            "--cors-origin",
            "https://app.example",
        ],
        cwd=REPO,
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        match = re.fullmatch(r"Liar's Lies is running: open (http://127\.0\.0\.1:\d+)/\n", first)
        assert match, first
        yield match.group(1)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_preflight_from_a_listed_origin_is_204(cors_server: str) -> None:
    asked = httpx.options(
        f"{cors_server}/auth/guest",
        headers={
            "Origin": FRONTEND,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )

    assert asked.status_code == 204
    assert asked.headers["access-control-allow-origin"] == FRONTEND
    assert asked.headers["access-control-allow-methods"] == "POST"
    assert "Content-Type" in asked.headers["access-control-allow-headers"]


def test_answers_and_errors_carry_the_headers_for_a_listed_origin(cors_server: str) -> None:
    headers = {"Origin": FRONTEND}
    made = httpx.post(f"{cors_server}/auth/guest", json={"name": "Ann"}, headers=headers)
    unsigned = httpx.get(f"{cors_server}/me", headers=headers)
    no_route = httpx.get(f"{cors_server}/no/such/path", headers=headers)
    too_big = httpx.post(
        f"{cors_server}/auth/guest",
        content=b"{" + b" " * 20_000 + b"}",
        headers={**headers, "Content-Type": "application/json"},
    )

    assert [r.status_code for r in (made, unsigned, no_route, too_big)] == [201, 401, 404, 413]
    for answer in (made, unsigned, no_route, too_big):
        assert answer.headers["access-control-allow-origin"] == FRONTEND, answer.request.url
        assert "Retry-After" in answer.headers["access-control-expose-headers"]
        assert answer.headers["vary"] == "Origin"


def test_an_origin_not_listed_gets_no_cors_header_and_no_preflight(cors_server: str) -> None:
    plain = httpx.get(f"{cors_server}/health", headers={"Origin": OTHER})
    no_route = httpx.get(f"{cors_server}/nowhere", headers={"Origin": OTHER})
    asked = httpx.options(
        f"{cors_server}/auth/guest",
        headers={"Origin": OTHER, "Access-Control-Request-Method": "POST"},
    )

    assert asked.status_code == 405 and asked.headers["allow"] == "POST"
    for answer in (plain, no_route, asked):
        assert not [h for h in answer.headers if h.lower().startswith("access-control-")]


def test_a_cors_origin_that_is_no_origin_stops_the_server_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "liars_local.cli", "serve", "--cors-origin", "localhost:5173"],
        cwd=REPO,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "localhost:5173" in done.stderr, done.stderr
