"""WebSocket connections cannot be opened without bound (SPEC §10: limits nobody can abuse).

Every connection multiplies the pushes of every room it watches. One guest could mint 300
tickets in a second and hold 200 connections (each watching up to 20 rooms), and one address
as many signed-out ones. Tickets are limited per user and window, new connections per source
address and window; a refused connection is answered 429 and leaves nothing behind (its
ticket stays unused).
"""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.settings import reset_settings
from tests.realtime.conftest import RealtimeEnv


def connect_from(rt: RealtimeEnv, connection_id: str, ip: str, ticket: str | None = None) -> int:
    """Open a connection from ``ip`` (API Gateway's ``requestContext.identity.sourceIp``)."""
    event: dict[str, Any] = rt.ws_event(
        connection_id, "$connect", query={"ticket": ticket} if ticket is not None else None
    )
    event["requestContext"]["identity"] = {"sourceIp": ip}
    return int(rt.client.lambda_.invoke("ws_connect", event).payload["statusCode"])


def test_tickets_are_limited_per_user_and_window(
    rt: RealtimeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = rt.register("alice"), rt.register("bob")
    monkeypatch.setenv("TICKETS_PER_USER", "3")
    reset_settings()
    for _ in range(3):
        rt.ticket(alice)
    refused = rt.client.http.post("/realtime/tickets", headers={"Authorization": f"Bearer {alice}"})
    assert refused.status_code == 429
    assert b'"rate_limited"' in refused.body
    assert int(refused.headers["Retry-After"]) >= 1
    rt.ticket(bob)  # another user is not slowed
    rt.clock.advance(int(refused.headers["Retry-After"]) * 1000)
    rt.ticket(alice)


def test_new_connections_are_limited_per_source_address(
    rt: RealtimeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = rt.register("alice")
    monkeypatch.setenv("CONNECTS_PER_SOURCE", "3")
    reset_settings()
    assert [connect_from(rt, f"s{i}", "198.51.100.7") for i in range(3)] == [200, 200, 200]
    ticket = rt.ticket(token)
    assert connect_from(rt, "s3", "198.51.100.7", ticket) == 429
    assert connect_from(rt, "s4", "198.51.100.7") == 429
    assert rt.store.get_connection("s3") is None and rt.store.get_connection("s4") is None
    # another address connects, with the ticket the refusal left unused
    assert connect_from(rt, "t1", "203.0.113.9", ticket) == 200
    conn = rt.store.get_connection("t1")
    assert conn is not None and conn.user_id == rt.user_id(token)


def test_the_connection_limits_are_configuration_documented_with_their_defaults() -> None:
    import chalicelib.settings as settings_module
    from chalicelib.settings import Settings

    names = {
        "TICKETS_PER_USER": "tickets_per_user",
        "TICKET_WINDOW_SECONDS": "ticket_window_seconds",
        "CONNECTS_PER_SOURCE": "connects_per_source",
        "CONNECT_WINDOW_SECONDS": "connect_window_seconds",
    }
    loaded = Settings.from_env({var: str(500 + i) for i, var in enumerate(names)})
    assert [getattr(loaded, attr) for attr in names.values()] == [500, 501, 502, 503]
    assert all(var in (settings_module.__doc__ or "") for var in names)
