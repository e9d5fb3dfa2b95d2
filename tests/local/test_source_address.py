"""The local server hands the app its peer's address as API Gateway's sourceIp (limits use it)."""

from __future__ import annotations

from typing import Any

import httpx
from chalice.app import Chalice

from liars_local.server import LocalServer


def test_peer_address_becomes_the_events_source_ip() -> None:
    app = Chalice(app_name="source-toy")

    @app.route("/whoami", methods=["GET"])
    def whoami() -> dict[str, Any]:
        request = app.current_request
        assert request is not None
        return {"source": request.context["identity"]["sourceIp"]}

    with LocalServer(
        chalice_app=app, access_log=lambda _l: None, install_deps=lambda *_: None
    ) as s:
        seen = []
        # Linux answers on all of 127.0.0.0/8: two clients, two different peer addresses.
        for local in ("127.0.0.2", "127.0.0.3"):
            with httpx.Client(transport=httpx.HTTPTransport(local_address=local)) as client:
                seen.append(client.get(f"{s.url}/whoami").json()["source"])
        # a header cannot claim another address
        spoofed = httpx.get(f"{s.url}/whoami", headers={"X-Forwarded-For": "203.0.113.9"})
    assert seen == ["127.0.0.2", "127.0.0.3"]
    assert spoofed.json()["source"] == "127.0.0.1"


def test_the_source_address_is_per_thread_so_parallel_requests_keep_their_own() -> None:
    import threading

    from liars_local.chalice_bridge import AppRunner

    runner = AppRunner(Chalice(app_name="per-thread"), lock=None)
    converter = runner.gateway.event_converter
    converter.LOCAL_SOURCE_IP = "192.0.2.1"
    seen: list[str] = []

    def other_request() -> None:
        seen.append(converter.LOCAL_SOURCE_IP)  # before it sets its own
        converter.LOCAL_SOURCE_IP = "192.0.2.2"
        seen.append(converter.LOCAL_SOURCE_IP)

    worker = threading.Thread(target=other_request)
    worker.start()
    worker.join()

    assert seen == ["127.0.0.1", "192.0.2.2"]
    assert converter.LOCAL_SOURCE_IP == "192.0.2.1"
