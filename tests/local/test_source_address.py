"""The local server hands the app its peer's address as API Gateway's sourceIp (limits use it)."""

from __future__ import annotations

from typing import Any

import httpx
from chalice.app import Chalice

from chalicelib.local.server import LocalServer


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
