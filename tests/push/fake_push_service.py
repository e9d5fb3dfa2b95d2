"""A push service on loopback for tests: records every request, answers from a script.

It also plays the browser: ``new_subscription`` makes a P-256 key pair and auth secret as a
browser would, and ``decrypt`` opens a recorded message with that private key (``http_ece``),
so a test sees exactly what a browser's service worker would receive.
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class FakeBrowser:
    """One subscription's private side (what the browser keeps)."""

    private: Any
    auth: bytes
    endpoint: str

    def to_json(self) -> dict[str, Any]:
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64u(point), "auth": b64u(self.auth)},
        }

    def decrypt(self, body: bytes) -> bytes:
        return bytes(
            http_ece.decrypt(
                body, private_key=self.private, auth_secret=self.auth, version="aes128gcm"
            )
        )


@dataclass
class FakePushService:
    """Answers each POST with the next scripted status (then 201) and records it."""

    port: int = 0
    script: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    connections: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def new_subscription(self, name: str = "") -> FakeBrowser:
        token = name or b64u(os.urandom(9))
        return FakeBrowser(
            ec.generate_private_key(ec.SECP256R1()), os.urandom(16), f"{self.origin}/push/{token}"
        )

    def answer(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.script.append((status, headers or {}))

    def for_path(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]


@contextmanager
def running(service: FakePushService | None = None) -> Iterator[FakePushService]:
    svc = service or FakePushService()

    class Handler(BaseHTTPRequestHandler):
        def setup(self) -> None:
            with svc.lock:
                svc.connections += 1
            super().setup()

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            with svc.lock:
                svc.requests.append(Recorded(self.path, dict(self.headers.items()), body))
                status, headers = svc.script.pop(0) if svc.script else (201, {})
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", svc.port), Handler)
    svc.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield svc
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
