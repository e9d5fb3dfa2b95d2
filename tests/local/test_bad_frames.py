"""A WebSocket text frame that is not UTF-8 closes its connection (1007) with one warning line
a minute, not an ERROR and a traceback per frame (any client could flood the log)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from liars_local import guard
from liars_local.server import LocalServer


def _masked_text_frame(payload: bytes) -> bytes:
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x81, 0x80 | len(payload)]) + mask + masked


def test_frames_that_are_not_utf8_are_one_warning_line_and_close_1007(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(guard, "CLIENT_WARNINGS", guard._Throttled())
    codes: list[int | None] = []
    with (
        caplog.at_level(logging.WARNING),
        LocalServer(data_dir=tmp_path, access_log=lambda _: None) as server,
    ):
        for _ in range(5):
            with connect(server.ws_url) as ws:
                ws.socket.sendall(_masked_text_frame(b"\xff\xfe\xfd"))
                try:
                    ws.recv(10)
                except ConnectionClosed as closed:
                    codes.append(closed.rcvd.code if closed.rcvd else None)
        with connect(server.ws_url) as ws:  # the server is fine
            ws.send('{"action": "ping"}')
            assert "pong" in str(ws.recv(10))
    err = capfd.readouterr().err

    assert codes == [1007] * 5
    lines = [r for r in caplog.records if "UTF-8" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert lines[0].exc_info is None
    assert "Traceback" not in err and "Invalid UTF-8" not in err, err
