"""``liars-dice serve --workers N``: several processes on one port, pushes across them, one
SQLite file written by all of them, and a clean stop."""

from __future__ import annotations

import contextlib
import fcntl
import json
import multiprocessing
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from chalicelib.adapters.sqlite import WRITER_LOCK_SUFFIX, SqliteStore
from chalicelib.ports import VersionConflict
from liars_local import workers as workers_module
from liars_local.channel import OP_CLOSE, OP_SEND, PushChannel, owner_of
from liars_local.cli import main
from liars_local.environment import DB_FILE_NAME
from liars_local.notifier import LocalNotifier
from liars_local.server import PortInUse
from liars_local.workers import WorkerPool, default_workers, refuse_workers
from tests.local.support import PASSWORD, REPO, auth, ok

pytestmark = pytest.mark.skipif(sys.platform.startswith("win"), reason="POSIX: workers")


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, not yet reaped by its parent, does not)."""
    if not Path("/proc").is_dir():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(condition: Any, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


class Served:
    """``python -m liars_local serve --workers N --port 0`` in a subprocess, its output read."""

    def __init__(self, data: Path, workers: int = 2, *, sigint_ignored: bool = False) -> None:
        self.data = data
        env = {**os.environ, "BOT_THINK_MIN_MS": "0", "BOT_THINK_MAX_MS": "0"}
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "liars_local", "serve", "--port", "0"),
                *("--data", str(data), "--workers", str(workers)),
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # as a shell starts a background job: Python then keeps SIGINT ignored
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
            if sigint_ignored
            else None,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        assert _wait_for(lambda: any("Workers:" in line for line in self.lines), 90), self.lines
        banner = "".join(self.lines)
        found = re.search(r"open (http://127\.0\.0\.1:(\d+))/", banner)
        assert found, banner
        self.url = found.group(1)
        assert int(found.group(2)) != 0
        pids = re.search(r"Workers: \d+ processes \(pids ([\d ]+)\)", banner)
        assert pids, banner
        self.pids = [int(p) for p in pids.group(1).split()]
        assert len(self.pids) == workers

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def connected(self) -> list[str]:
        """Connection ids of the WebSockets the workers accepted, in log order."""
        return [m.group(1) for line in self.lines if (m := re.search(r"connected (\S+)", line))]

    def stop(self, sig: int = signal.SIGINT) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()  # its workers see the supervisor gone and stop
            raise
        self._reader.join(5)
        return code


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("workers"))
    try:
        yield server
    finally:
        server.stop()


def _subscribe(
    server: Served, room_id: str, stack: contextlib.ExitStack
) -> tuple[ClientConnection, str]:
    """A subscribed spectator WebSocket (closed with ``stack``) and the id its worker gave it."""
    before = len(server.connected())
    ws = stack.enter_context(connect(server.url.replace("http", "ws") + "/ws"))
    ws.send(json.dumps({"action": "subscribe", "room_id": room_id}))
    ws.send(json.dumps({"action": "ping"}))  # answered in order: the pong means subscribed
    while json.loads(ws.recv(10)).get("type") != "pong":
        pass
    assert _wait_for(lambda: len(server.connected()) > before)
    return ws, server.connected()[-1]


def _subscribe_on_both_workers(
    server: Served, room_id: str, stack: contextlib.ExitStack
) -> list[tuple[ClientConnection, str]]:
    """Subscribed WebSockets (see ``_subscribe``), opened until each of two workers holds one."""
    sockets: list[tuple[ClientConnection, str]] = []
    for _ in range(30):
        sockets.append(_subscribe(server, room_id, stack))
        if {owner_of(cid) for _, cid in sockets} == {0, 1}:
            break
    assert {owner_of(cid) for _, cid in sockets} == {0, 1}
    return sockets


def _room_versions(ws: ClientConnection, until: int) -> list[int]:
    versions: list[int] = []
    while not versions or versions[-1] < until:
        message = json.loads(ws.recv(10))
        if message.get("type") == "room":
            versions.append(message["room"]["version"])
    return versions


def _guest_room(url: str) -> tuple[str, str, int]:
    token = ok(httpx.post(f"{url}/auth/guest", json={"name": "Host"}), 201)["token"]
    room = ok(httpx.post(f"{url}/rooms", json={"settings": {}}, headers=auth(token)), 201)
    return token, room["id"], room["version"]


# --- defaults and refusals -------------------------------------------------------------------


def test_default_workers_are_the_cpus_up_to_four_on_sqlite_and_one_on_moto_or_windows() -> None:
    assert default_workers("sqlite", "linux", 2) == 2
    assert default_workers("sqlite", "darwin", 16) == 4
    assert default_workers("dynamodb", "linux", 3) == 3
    assert default_workers("sqlite", "linux", 1) == 1
    assert default_workers("moto", "linux", 8) == 1
    assert default_workers("sqlite", "win32", 8) == 1
    assert refuse_workers("sqlite", 1, "win32") is None
    assert refuse_workers("sqlite", 2, "win32") is not None


def test_moto_with_several_workers_is_refused_with_exit_code_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--storage", "moto", "--workers", "2", "--port", "0"])
    assert exited.value.code == 2
    assert "--storage moto keeps everything in one process's memory" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--workers", "0", "--port", "0"])
    assert exited.value.code == 2


# --- the push channel ------------------------------------------------------------------------


def _channels(
    runtime: Path,
) -> tuple[PushChannel, PushChannel, list[tuple[int, str, str]], list[str]]:
    delivered: list[tuple[int, str, str]] = []
    forgotten: list[str] = []
    known = {"w1-live"}

    def deliver(op: int, connection_id: str, text: str) -> bool:
        delivered.append((op, connection_id, text))
        return connection_id in known

    sender = PushChannel(runtime, 0, 2, deliver=lambda *_: True, gone=forgotten.append)
    owner = PushChannel(runtime, 1, 2, deliver=deliver, gone=forgotten.append)
    sender.start()
    owner.start()
    return sender, owner, delivered, forgotten


def test_pushes_to_another_workers_connection_arrive_in_order(tmp_path: Path) -> None:
    sender, owner, delivered, forgotten = _channels(tmp_path)
    try:
        assert sender.owner("w1-live") == 1 and sender.owner("w0-mine") is None
        for n in range(300):
            assert sender.forward(1, OP_SEND, "w1-live", f'{{"n":{n},"text":"é\\n"}}')
        assert sender.forward(1, OP_CLOSE, "w1-live")
        assert _wait_for(lambda: len(delivered) == 301)
        assert [text for _, _, text in delivered[:300]] == [
            f'{{"n":{n},"text":"é\\n"}}' for n in range(300)
        ]
        assert delivered[300][:2] == (OP_CLOSE, "w1-live")
        assert forgotten == []
    finally:
        sender.stop()
        owner.stop()


def test_a_push_to_a_connection_its_live_owner_no_longer_has_is_forgotten_by_the_owner(
    tmp_path: Path,
) -> None:
    sender, owner, delivered, forgotten = _channels(tmp_path)
    try:
        for _ in range(3):
            assert sender.forward(1, OP_SEND, "w1-closed", "{}")
        assert _wait_for(lambda: len(delivered) == 3)
        assert forgotten == ["w1-closed"]  # once, though three pushes found it gone
    finally:
        sender.stop()
        owner.stop()


def test_a_push_to_a_dead_workers_connection_answers_gone_and_a_restarted_one_is_reached(
    tmp_path: Path,
) -> None:
    sender, owner, delivered, _ = _channels(tmp_path)
    notifier = LocalNotifier()
    notifier.channel = sender
    try:
        assert notifier.send("w1-live", {"n": 1})
        owner.stop()  # the worker died: nothing listens on its socket any more
        assert notifier.send("w1-live", {"n": 2}) is False
        assert notifier.is_connected("w1-live") is False
        again = PushChannel(
            tmp_path,
            1,
            2,
            deliver=lambda *a: bool(delivered.append(a)) or True,
            gone=lambda _: None,
        )
        again.start()  # started again on the same socket path
        try:
            assert notifier.send("w1-live", {"n": 3})
            assert _wait_for(lambda: (OP_SEND, "w1-live", '{"n":3}') in delivered)
        finally:
            again.stop()
        # this worker's own ids, and ids naming no worker, stay local: unknown is gone
        assert notifier.new_connection_id().startswith("w0-")
        assert notifier.send("w0-unknown", {}) is False
        assert notifier.send("plain-id", {}) is False
        assert owner_of("w12-abc") == 12 and owner_of("abc") is None
    finally:
        sender.stop()


# --- the SQLite file shared by processes -----------------------------------------------------


def _race(path: str, room_id: str, threads: int, barrier: Any, wins: Any) -> None:
    store = SqliteStore(path)
    held = store.get_room(room_id)
    assert held is not None

    def attempt(n: int) -> None:
        barrier.wait()
        try:
            store.save_room(room_id, {**held.state, "by": n}, {"n": n}, held.version)
        except VersionConflict:
            return
        with wins.get_lock():
            wins.value += 1

    workers = [threading.Thread(target=attempt, args=(n,)) for n in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    store.close()


def test_many_threads_in_two_processes_racing_on_one_turn_have_exactly_one_winner(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / DB_FILE_NAME)
    store = SqliteStore(path)
    threads = 8
    spawn = multiprocessing.get_context("spawn")
    for round_ in range(3):
        room_id = f"room-{round_}"
        store.create_room(room_id, {"turn": 1}, {})
        barrier = spawn.Barrier(2 * threads)
        wins = spawn.Value("i", 0)
        racers = [
            spawn.Process(target=_race, args=(path, room_id, threads, barrier, wins))
            for _ in range(2)
        ]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join(60)
            assert racer.exitcode == 0
        assert wins.value == 1
        stored = store.get_room(room_id)
        assert stored is not None and stored.version == 2
    store.close()


def test_a_write_holds_the_os_lock_beside_the_database_that_other_processes_wait_on(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / DB_FILE_NAME)
    store = SqliteStore(path)
    other = os.open(path + WRITER_LOCK_SUFFIX, os.O_RDWR)  # as another process would
    try:
        with store._write(), pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free once the write is done
        fcntl.flock(other, fcntl.LOCK_UN)
    finally:
        os.close(other)
        store.close()


# --- the whole server on two workers ---------------------------------------------------------


def test_port_0_prints_a_reachable_url_served_by_two_worker_processes(served: Served) -> None:
    assert ok(httpx.get(f"{served.url}/health")) == {"status": "ok"}
    assert all(_alive(pid) for pid in served.pids)


def test_a_push_made_in_one_worker_reaches_websockets_held_by_each_worker(
    served: Served,
) -> None:
    token, room_id, version = _guest_room(served.url)
    with contextlib.ExitStack() as stack:
        # both workers hold one: whichever worker then handles an action, one of the pushes
        # must cross to the other process
        sockets = _subscribe_on_both_workers(served, room_id, stack)
        for _ in range(2):  # each on a fresh connection, so on either worker
            ok(httpx.post(f"{served.url}/rooms/{room_id}/bots", json={}, headers=auth(token)), 201)
        for ws, _ in sockets:
            assert _room_versions(ws, version + 2) == [version + 1, version + 2]  # in order


def test_a_killed_worker_is_started_again_and_its_subscriptions_are_forgotten(
    served: Served,
) -> None:
    token, room_id, _ = _guest_room(served.url)
    with contextlib.ExitStack() as stack:
        sockets = _subscribe_on_both_workers(served, room_id, stack)
        victim = next(cid for _, cid in sockets if owner_of(cid) == 1)
        store = SqliteStore(served.data / DB_FILE_NAME)
        assert victim in {cid for cid, _ in store.subscribers(room_id)}
        os.kill(served.pids[1], signal.SIGKILL)
        assert _wait_for(lambda: any("starting it again" in line for line in served.lines))
        # the next push finds the dead worker's connection gone and forgets it
        ok(httpx.post(f"{served.url}/rooms/{room_id}/bots", json={}, headers=auth(token)), 201)
        assert _wait_for(lambda: victim not in {c for c, _ in store.subscribers(room_id)})
        survivors = {cid for _, cid in sockets if owner_of(cid) == 0}
        assert survivors <= {cid for cid, _ in store.subscribers(room_id)}
        assert ok(httpx.get(f"{served.url}/health")) == {"status": "ok"}
        store.close()


def test_sigint_stops_every_worker_and_data_survives_a_restart(tmp_path: Path) -> None:
    first = Served(tmp_path, sigint_ignored=True)  # stops all the same
    token = ok(
        httpx.post(f"{first.url}/auth/register", json={"username": "Alice", "password": PASSWORD}),
        201,
    )["token"]
    room_id = ok(httpx.post(f"{first.url}/rooms", json={"settings": {}}, headers=auth(token)), 201)[
        "id"
    ]
    assert first.stop(signal.SIGINT) == 0  # the supervisor only, not its process group
    assert "Stopped.\n" in first.lines
    assert _wait_for(lambda: not any(_alive(pid) for pid in first.pids), 5)

    second = Served(tmp_path)
    try:
        assert ok(httpx.get(f"{second.url}/me", headers=auth(token)))["user"]["name"] == "Alice"
        login = ok(
            httpx.post(f"{second.url}/auth/login", json={"username": "alice", "password": PASSWORD})
        )
        room = ok(httpx.get(f"{second.url}/rooms/{room_id}", headers=auth(login["token"])))
        assert room["id"] == room_id
    finally:
        assert second.stop(signal.SIGTERM) == 0
    assert _wait_for(lambda: not any(_alive(pid) for pid in second.pids), 5)


def test_a_burst_of_new_connections_is_spread_over_the_workers(served: Served) -> None:
    # every game opens its connections at once: one worker must not take them all (with
    # even odds per connection, all 16 on one worker happens once in 30,000 runs)
    before = len(served.connected())
    barrier = threading.Barrier(16)
    opened: list[ClientConnection] = []
    failed: list[BaseException] = []

    def open_one() -> None:
        barrier.wait()
        try:
            opened.append(connect(served.url.replace("http", "ws") + "/ws").__enter__())
        except Exception as err:
            failed.append(err)

    threads = [threading.Thread(target=open_one) for _ in range(16)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        assert not failed
        assert _wait_for(lambda: len(served.connected()) >= before + 16), (
            len(opened),
            served.lines,
        )
        owners = [owner_of(cid) for cid in served.connected()[before:]]
        assert 0 in owners and 1 in owners, owners
    finally:
        for ws in opened:
            ws.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT sharing: Linux")
def test_a_port_shared_by_another_server_is_refused_as_taken(tmp_path: Path) -> None:
    other = socket.socket()
    other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    other.bind(("127.0.0.1", 0))
    other.listen(1)
    port = other.getsockname()[1]
    try:
        with pytest.raises(PortInUse, match=f"port {port} in use"):
            WorkerPool(port=port, workers=2, data_dir=tmp_path).start()
    finally:
        other.close()
    assert not (tmp_path / DB_FILE_NAME).exists()  # refused before anything was set up


def test_the_supervisor_creates_the_dynamodb_table_once_before_any_worker_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[str | None, str | None]] = []

    class Table:
        def ensure_table(self) -> None:
            made.append((os.environ.get("DYNAMODB_ENDPOINT"), os.environ.get("TABLE_NAME")))

    monkeypatch.setattr(workers_module, "local_store", lambda db_path: Table())
    pool = WorkerPool(
        workers=2, storage="dynamodb", data_dir=tmp_path, dynamodb_endpoint="http://db:8000"
    )
    pool._prepare_storage()
    assert made == [("http://db:8000", "liars-lies-local")]
    assert os.environ.get("DYNAMODB_ENDPOINT") is None  # the environment is put back
    assert (tmp_path / "token-secret").is_file()
