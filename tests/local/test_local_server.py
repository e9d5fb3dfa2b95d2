"""The local server in-process: Chalice REST through LocalGateway, WebSockets at /ws, timers, lock."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from chalice.app import Chalice, WebsocketEvent

from liars_local.server import LocalServer
from liars_local.thread_pool import SQLITE_WORKER_THREADS, WORKER_THREADS


def no_deps(*_: object) -> None:
    """Tests with toy apps leave chalicelib.wiring alone."""
    return None


class Log(list[str]):
    """Collects access-log lines (thread-safe enough: list.append is atomic)."""


def wait_until(condition: Any, timeout: float = 5.0) -> bool:
    """Poll ``condition`` until true (the server logs after it has answered)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


# --- the real app: REST through Chalice's own gateway ------------------------------------


@pytest.fixture(scope="module")
def real_server() -> Iterator[tuple[LocalServer, Log]]:
    log = Log()
    with LocalServer(access_log=log.append) as server:
        yield server, log


def test_health_answers_ok_and_logs_one_line(real_server: tuple[LocalServer, Log]) -> None:
    server, log = real_server
    before = len(log)

    answer = httpx.get(f"{server.url}/health")

    assert answer.status_code == 200
    assert answer.json() == {"status": "ok"}
    assert answer.headers["content-type"] == "application/json"
    new_lines = log[before:]
    assert len(new_lines) == 1
    method, path, status, elapsed = new_lines[0].split(" ")
    assert (method, path, status) == ("GET", "/health", "200")
    assert elapsed.endswith("ms")


def test_answers_are_not_held_back_by_nagle(real_server: tuple[LocalServer, Log]) -> None:
    # Headers and body go out in two writes; without TCP_NODELAY the body waits for the
    # client's delayed ACK, about 40 ms on Linux, on every request of a kept-alive connection.
    import statistics

    server, _ = real_server
    with httpx.Client(base_url=server.url) as client:
        client.get("/health")
        times = []
        for _ in range(9):
            started = time.perf_counter()
            assert client.get("/health").status_code == 200
            times.append(time.perf_counter() - started)

    assert statistics.median(times) < 0.030, times


def test_unknown_path_gets_chalice_4xx_json(real_server: tuple[LocalServer, Log]) -> None:
    server, log = real_server

    answer = httpx.get(f"{server.url}/no/such/route")

    assert 400 <= answer.status_code < 500
    assert isinstance(answer.json(), dict)
    assert log[-1].startswith("GET /no/such/route 4")


@pytest.mark.parametrize("path", ["/%00", "/" + "a" * 300, "/rooms/%00", "/rooms/x/bots/%00"])
def test_odd_paths_get_a_4xx_never_a_5xx(real_server: tuple[LocalServer, Log], path: str) -> None:
    server, _ = real_server

    for answer in (httpx.get(f"{server.url}{path}"), httpx.head(f"{server.url}{path}")):
        assert 400 <= answer.status_code < 500, (path, answer.status_code)


def test_wrong_method_gets_405_in_the_project_shape(real_server: tuple[LocalServer, Log]) -> None:
    server, _ = real_server

    answer = httpx.delete(f"{server.url}/health")

    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET"
    assert answer.json()["error"]["code"] == "method_not_allowed"


def test_environment_is_local_and_sqlite_backed_by_default(
    real_server: tuple[LocalServer, Log],
) -> None:
    import os

    from chalicelib import wiring
    from chalicelib.adapters.sqlite import SqliteStore

    server, _ = real_server
    assert os.environ["TABLE_NAME"] == "liars-lies-local"
    assert len(os.environ["TOKEN_SECRET"]) >= 32
    assert server.storage == "sqlite" and server.db_path is not None
    assert server.db_path.is_file()
    store = wiring.get_deps().store
    assert isinstance(store, SqliteStore) and store.path == str(server.db_path)
    assert server.runner is not None and not server.runner.serialized
    # on SQLite a handler waits only for the GIL: a few threads, not the I/O-bound default
    assert server.runner.threads == SQLITE_WORKER_THREADS < WORKER_THREADS


def test_serving_processes_collect_garbage_less_often_and_tests_keep_the_defaults() -> None:
    import gc
    import subprocess
    import sys

    # this process (pytest) started servers above and kept Python's own thresholds
    assert gc.get_threshold()[0] < 20_000
    script = (
        "import gc; from liars_local.environment import tune_gc_for_serving;"
        "tune_gc_for_serving(); print(gc.get_threshold(), gc.get_freeze_count() > 1000)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert " ".join(out) == "(20000, 10, 10) True"


def test_moto_storage_keeps_the_table_in_moto_and_serializes_requests() -> None:
    import boto3

    from chalicelib import wiring
    from chalicelib.adapters.dynamo import DynamoStore

    with LocalServer(storage="moto", access_log=lambda _: None) as server:
        assert server.data_dir is None and server.runner is not None
        assert server.runner.serialized and server.runner.threads == WORKER_THREADS
        assert isinstance(wiring.get_deps().store, DynamoStore)
        # the embedded backend holds the app's table, created on start
        client = boto3.client("dynamodb", region_name="us-east-1")
        assert "liars-lies-local" in client.list_tables()["TableNames"]
        guest = httpx.post(f"{server.url}/auth/guest", json={"name": "Mo"})
        assert guest.status_code == 201, guest.text


# --- toy apps: WebSocket plumbing, pushes, timers, the lock ------------------------------


def bare_app() -> Chalice:
    app = Chalice(app_name="bare")

    @app.route("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    return app


def test_websocket_without_handlers_gets_an_error_and_a_clean_close() -> None:
    log = Log()
    with LocalServer(chalice_app=bare_app(), access_log=log.append, install_deps=no_deps) as server:

        async def talk() -> tuple[dict[str, Any], int | None]:
            async with websockets.connect(server.ws_url) as ws:
                first = json.loads(await ws.recv())
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await ws.recv()
                return first, closed.value.rcvd.code if closed.value.rcvd else None

        first, code = asyncio.run(talk())

    assert first["type"] == "error"
    assert first["error"]["code"] == "websocket_unavailable"
    assert code == 1011
    assert wait_until(lambda: any(line.startswith("WS /ws 1011") for line in log))


class WsApp:
    """A toy app with WebSocket handlers and a room_timer, pushing through the server's notifier."""

    def __init__(self) -> None:
        self.server: LocalServer | None = None
        self.events: list[dict[str, Any]] = []
        self.timer_events: list[dict[str, Any]] = []
        self.timer_fired = threading.Event()
        self.active = 0
        self.max_active = 0
        self.app = app = Chalice(app_name="toy")
        app.experimental_feature_flags.update(["WEBSOCKETS"])

        @app.route("/slow", methods=["POST"])
        def slow() -> dict[str, int]:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            time.sleep(0.005)
            self.active -= 1
            return {"active": self.active}

        @app.route("/echo", methods=["POST"])
        def echo() -> dict[str, Any]:
            first = app.current_request.json_body
            time.sleep(0.005)  # other requests run meanwhile on SQLite storage
            return {"before": first, "after": app.current_request.json_body}

        @app.route("/rooms/{room_id}/poke", methods=["POST"])
        def poke(room_id: str) -> dict[str, Any]:
            body = app.current_request.json_body
            sent = self.notifier.send(body["connection_id"], {"type": "poke", "room_id": room_id})
            return {"sent": sent}

        @app.on_ws_connect()
        def ws_connect(event: WebsocketEvent) -> dict[str, int]:
            self.events.append(event.to_dict())
            query = event.to_dict().get("queryStringParameters") or {}
            if query.get("ticket") == "bad":
                return {"statusCode": 401}
            return {"statusCode": 200}

        @app.on_ws_message()
        def ws_message(event: WebsocketEvent) -> None:
            self.events.append(event.to_dict())
            body = event.json_body
            if body.get("action") == "boom":
                raise RuntimeError("handler failed")
            if body.get("action") == "chalice_send":
                app.websocket_api.send(event.connection_id, "via chalice")
                return
            if body.get("action") == "chalice_close":
                app.websocket_api.close(event.connection_id)
                return
            self.notifier.send(event.connection_id, {"type": "echo", "body": body})

        @app.on_ws_disconnect()
        def ws_disconnect(event: WebsocketEvent) -> None:
            self.events.append(event.to_dict())

        @app.lambda_function()
        def room_timer(event: dict[str, Any], context: Any) -> None:
            self.timer_events.append(event)
            self.timer_fired.set()

    @property
    def notifier(self) -> Any:
        assert self.server is not None
        return self.server.notifier


@pytest.fixture
def toy() -> Iterator[tuple[WsApp, LocalServer, Log]]:
    toy_app = WsApp()
    log = Log()
    with LocalServer(
        chalice_app=toy_app.app, access_log=log.append, install_deps=no_deps
    ) as server:
        toy_app.server = server
        yield toy_app, server, log


def test_websocket_events_are_shaped_like_api_gateway(
    toy: tuple[WsApp, LocalServer, Log],
) -> None:
    toy_app, server, _ = toy

    async def talk() -> dict[str, Any]:
        async with websockets.connect(f"{server.ws_url}?ticket=abc") as ws:
            await ws.send(json.dumps({"action": "ping"}))
            answer: dict[str, Any] = json.loads(await ws.recv())
            return answer

    echo = asyncio.run(talk())
    assert wait_until(lambda: len(toy_app.events) == 3)

    assert echo == {"type": "echo", "body": {"action": "ping"}}
    connect, message, _disconnect = toy_app.events
    assert [e["requestContext"]["routeKey"] for e in toy_app.events] == [
        "$connect",
        "$default",
        "$disconnect",
    ]
    assert [e["requestContext"]["eventType"] for e in toy_app.events] == [
        "CONNECT",
        "MESSAGE",
        "DISCONNECT",
    ]
    ids = {e["requestContext"]["connectionId"] for e in toy_app.events}
    assert len(ids) == 1
    assert connect["queryStringParameters"] == {"ticket": "abc"}
    assert json.loads(message["body"]) == {"action": "ping"}
    assert not server.notifier.is_connected(ids.pop())


def test_connect_handler_refusal_refuses_the_handshake(
    toy: tuple[WsApp, LocalServer, Log],
) -> None:
    _, server, log = toy

    async def talk() -> None:
        async with websockets.connect(f"{server.ws_url}?ticket=bad"):
            pass

    with pytest.raises(websockets.InvalidStatus) as refused:
        asyncio.run(talk())

    assert refused.value.response.status_code == 403
    assert wait_until(lambda: any(line.startswith("WS /ws 401") for line in log))


def test_a_rest_handler_pushes_to_a_live_connection_and_not_to_a_gone_one(
    toy: tuple[WsApp, LocalServer, Log],
) -> None:
    toy_app, server, _ = toy

    async def talk() -> tuple[dict[str, Any], str]:
        async with websockets.connect(server.ws_url) as ws:
            await ws.send(json.dumps({"action": "ping"}))
            await ws.recv()
            connection_id = toy_app.events[0]["requestContext"]["connectionId"]
            async with httpx.AsyncClient() as client:
                answer = await client.post(
                    f"{server.url}/rooms/r1/poke", json={"connection_id": connection_id}
                )
            assert answer.json() == {"sent": True}
            pushed: dict[str, Any] = json.loads(await ws.recv())
            return pushed, connection_id

    pushed, connection_id = asyncio.run(talk())
    gone = httpx.post(f"{server.url}/rooms/r1/poke", json={"connection_id": connection_id})

    assert pushed == {"type": "poke", "room_id": "r1"}
    assert gone.json() == {"sent": False}
    assert server.notifier.send("never-existed", {"type": "x"}) is False


def test_a_failing_message_handler_answers_an_error_and_keeps_the_connection(
    toy: tuple[WsApp, LocalServer, Log],
) -> None:
    _, server, _ = toy

    async def talk() -> tuple[dict[str, Any], dict[str, Any]]:
        async with websockets.connect(server.ws_url) as ws:
            await ws.send(json.dumps({"action": "boom"}))
            error = json.loads(await ws.recv())
            await ws.send(json.dumps({"action": "ping"}))
            echo = json.loads(await ws.recv())
            return error, echo

    error, echo = asyncio.run(talk())

    assert error["type"] == "error"
    assert error["error"]["code"] == "internal_error"
    assert echo["type"] == "echo"


def test_chalice_websocket_api_also_reaches_local_connections(
    toy: tuple[WsApp, LocalServer, Log],
) -> None:
    _, server, _ = toy

    async def talk() -> tuple[str, int | None]:
        async with websockets.connect(server.ws_url) as ws:
            await ws.send(json.dumps({"action": "chalice_send"}))
            text = str(await ws.recv())
            await ws.send(json.dumps({"action": "chalice_close"}))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            return text, closed.value.rcvd.code if closed.value.rcvd else None

    text, code = asyncio.run(talk())

    assert text == "via chalice"
    assert code == 1000


def test_pushes_keep_their_order(toy: tuple[WsApp, LocalServer, Log]) -> None:
    _, server, _ = toy

    async def talk() -> list[int]:
        async with websockets.connect(server.ws_url) as ws:
            for n in range(30):
                await ws.send(json.dumps({"action": "n", "n": n}))
            return [json.loads(await ws.recv())["body"]["n"] for _ in range(30)]

    assert asyncio.run(talk()) == list(range(30))


def test_timers_invoke_the_room_timer_handler(toy: tuple[WsApp, LocalServer, Log]) -> None:
    toy_app, server, _ = toy
    assert server.timers is not None

    server.timers.schedule("room42", 5, int(time.time() * 1000) + 20)

    assert toy_app.timer_fired.wait(5)
    assert toy_app.timer_events == [{"room_id": "room42", "version": 5}]


def _burst(url: str, n: int = 16) -> list[int]:
    async def burst() -> list[int]:
        async with httpx.AsyncClient() as client:
            answers = await asyncio.gather(*(client.post(url) for _ in range(n)))
        return [a.status_code for a in answers]

    return asyncio.run(burst())


def test_handlers_never_run_concurrently_on_moto() -> None:
    toy_app, log = WsApp(), Log()
    with LocalServer(
        storage="moto", chalice_app=toy_app.app, access_log=log.append, install_deps=no_deps
    ) as server:
        statuses = _burst(f"{server.url}/slow")

    assert statuses == [200] * 16
    assert toy_app.max_active == 1
    assert sum(1 for line in log if line.startswith("POST /slow 200")) == 16


def test_handlers_run_in_parallel_on_sqlite_each_with_its_own_request(
    toy: tuple[WsApp, LocalServer, Log],
) -> None:
    toy_app, server, _ = toy

    assert _burst(f"{server.url}/slow") == [200] * 16
    assert toy_app.max_active > 1

    async def echoes() -> list[Any]:
        async with httpx.AsyncClient() as client:
            answers = await asyncio.gather(
                *(client.post(f"{server.url}/echo", json={"i": i}) for i in range(16))
            )
        return [a.json() for a in answers]

    assert asyncio.run(echoes()) == [{"before": {"i": i}, "after": {"i": i}} for i in range(16)]


def test_web_client_files_are_served_at_the_root_and_under_static(tmp_path: Any) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>Liar's Lies</title>")
    (tmp_path / "app.js").write_text("console.log('hi')")
    with LocalServer(
        chalice_app=bare_app(), access_log=lambda _: None, install_deps=no_deps, static_dir=tmp_path
    ) as server:
        index = httpx.get(f"{server.url}/")
        root_js = httpx.get(f"{server.url}/app.js")
        static_js = httpx.get(f"{server.url}/static/app.js")
        escape = httpx.get(f"{server.url}/static/../../etc/passwd")
        health = httpx.get(f"{server.url}/health")

    assert index.status_code == 200
    assert "Liar's Lies" in index.text
    assert index.headers["content-type"].startswith("text/html")
    assert root_js.text == static_js.text == "console.log('hi')"
    assert escape.status_code >= 400
    assert health.json() == {"status": "ok"}


# --- the command line ---------------------------------------------------------------------


def test_cli_prints_the_url_serves_logs_and_stops_on_ctrl_c(tmp_path: Any) -> None:
    import re
    import signal
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    errors = (tmp_path / "stderr.txt").open("w")
    import os

    proc = subprocess.Popen(
        [sys.executable, "-m", "liars_local.cli", "serve", "--port", "0"],
        cwd=repo,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        match = re.fullmatch(r"Liar's Lies is running: open (http://127\.0\.0\.1:(\d+)/)\n", first)
        assert match, first + (tmp_path / "stderr.txt").read_text()
        assert int(match.group(2)) > 0
        folder = tmp_path / "liars-lies"
        assert proc.stdout.readline() == (
            f"Storage: SQLite at {folder / 'liars-lies.db'}. Press Ctrl-C to stop.\n"
        )
        assert proc.stdout.readline() == f"Data folder: {folder}\n"
        assert (folder / "liars-lies.db").is_file() and (folder / "token-secret").is_file()
        health = httpx.get(f"{match.group(1)}health", timeout=10)
        assert health.json() == {"status": "ok"}
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        errors.close()

    assert proc.returncode == 0
    assert re.search(r"^GET /health 200 [\d.]+ms$", rest, re.MULTILINE), rest
    assert rest.rstrip().endswith("Stopped.")


def test_stopping_closes_live_websockets_and_runs_their_disconnect_handler() -> None:
    toy_app = WsApp()
    server = LocalServer(chalice_app=toy_app.app, access_log=lambda _: None, install_deps=no_deps)
    server.start()
    toy_app.server = server
    connected = threading.Event()
    closed_codes: list[int | None] = []

    async def hold() -> None:
        async with websockets.connect(server.ws_url) as ws:
            connected.set()
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            closed_codes.append(closed.value.rcvd.code if closed.value.rcvd else None)

    client = threading.Thread(target=lambda: asyncio.run(hold()))
    client.start()
    assert connected.wait(5)
    assert wait_until(lambda: len(toy_app.events) == 1)

    server.stop()
    client.join(10)

    assert not client.is_alive()
    assert closed_codes and closed_codes[0] is not None
    assert [e["requestContext"]["routeKey"] for e in toy_app.events] == ["$connect", "$disconnect"]


def test_dynamodb_endpoint_option_points_boto3_there_and_restores_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    import boto3

    from liars_local.environment import local_environment

    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)
    monkeypatch.setenv("TABLE_NAME", "operator-table")

    with local_environment("http://127.0.0.1:8999"):
        client = boto3.client("dynamodb")
        assert client.meta.endpoint_url == "http://127.0.0.1:8999"
        assert os.environ["TABLE_NAME"] == "operator-table"  # an operator's choice is kept
        assert os.environ["TOKEN_SECRET"]

    assert "AWS_ENDPOINT_URL_DYNAMODB" not in os.environ
