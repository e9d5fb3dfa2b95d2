"""Slow clients and one greedy source cannot lock newcomers out: headers sent a byte at a
time are cut after the header-read timeout, one address holds at most its cap of
connections, and the open-file limit is raised to the hard limit at start."""

from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path

import httpx
import pytest

from liars_local.guard import raise_open_file_limit
from liars_local.server import LocalServer
from tests.local.support import ok


def _closed_by_server(sock: socket.socket, within_s: float) -> bool:
    """True when the server closes ``sock`` (EOF or reset) before ``within_s`` pass."""
    sock.settimeout(within_s)
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def _connect(server: LocalServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def test_headers_sent_a_byte_at_a_time_are_cut_after_the_header_timeout(tmp_path: Path) -> None:
    with LocalServer(data_dir=tmp_path, access_log=lambda _: None, header_timeout=1.0) as server:
        trickle, silent = _connect(server), _connect(server)
        try:
            request = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: "
            end = time.monotonic() + 4
            cut = False
            for byte in request:  # one byte each 0.2 s: the request would take 8 s
                try:
                    trickle.send(bytes([byte]))
                except OSError:
                    cut = True
                    break
                if time.monotonic() > end:
                    break
                time.sleep(0.2)
            cut = cut or _closed_by_server(trickle, 5)
            assert cut, "a client trickling its headers kept its connection"
            assert _closed_by_server(silent, 5), "a client sending nothing kept its connection"
            ok(httpx.get(f"{server.url}/health", timeout=5))  # a keep-alive request is served
        finally:
            trickle.close()
            silent.close()


def test_keep_alive_requests_after_the_first_are_not_cut(tmp_path: Path) -> None:
    with (
        LocalServer(data_dir=tmp_path, access_log=lambda _: None, header_timeout=1.0) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        for _ in range(3):
            ok(client.get("/health"))
            time.sleep(0.6)  # each wait shorter than uvicorn's keep-alive timeout


def test_one_source_holds_at_most_its_cap_and_a_freed_place_is_usable(tmp_path: Path) -> None:
    with LocalServer(
        data_dir=tmp_path,
        access_log=lambda _: None,
        max_connections_per_source=5,
        cap_loopback=True,  # the test's clients are all on this machine
    ) as server:
        with contextlib.ExitStack() as stack:
            held = [stack.enter_context(_connect(server)) for _ in range(4)]
            ok(httpx.get(f"{server.url}/health", timeout=5))  # the fifth, closed after
            time.sleep(0.2)
            held.append(stack.enter_context(_connect(server)))
            extra = stack.enter_context(_connect(server))
            assert _closed_by_server(extra, 5), "a sixth connection from one source was kept"
            with pytest.raises(httpx.TransportError):
                httpx.get(f"{server.url}/health", timeout=5)
            held[0].close()
            time.sleep(0.2)
            ok(httpx.get(f"{server.url}/health", timeout=5))
        time.sleep(0.2)
        # WebSockets count, and give their place back when they close
        from websockets.sync.client import connect

        for _ in range(8):
            with connect(server.ws_url) as ws:
                ws.send('{"action": "ping"}')
                assert "pong" in str(ws.recv(5))


def test_loopback_clients_are_not_capped_unless_asked(tmp_path: Path) -> None:
    with (
        LocalServer(
            data_dir=tmp_path, access_log=lambda _: None, max_connections_per_source=2
        ) as server,
        contextlib.ExitStack() as stack,
    ):
        for _ in range(4):
            stack.enter_context(_connect(server))
        ok(httpx.get(f"{server.url}/health", timeout=5))


def test_the_soft_open_file_limit_is_raised_to_the_hard_limit() -> None:
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lowered = min(hard, 256) if hard != resource.RLIM_INFINITY else 256
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowered, hard))
    try:
        limits = raise_open_file_limit()
        assert limits is not None
        now = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert now == (hard if hard != resource.RLIM_INFINITY else lowered)
        assert limits[0] == now
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
