"""The Web Push sender against a push service on loopback: what a browser would receive."""

from __future__ import annotations

import json
from collections.abc import Iterator

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from chalicelib.push_endpoints import parse_allow_list
from chalicelib.webpush import PushTarget, VapidKey, WebPushSender, b64u_decode
from tests.push.fake_push_service import FakeBrowser, FakePushService, running

SECRET = "a-test-vapid-secret-of-enough-length-0123456789"
MESSAGE = {
    "type": "your_turn",
    "room_id": "r1",
    "rules": "classic",
    "title": "Your turn",
    "body": "Ana bid three fours",
}


@pytest.fixture
def push() -> Iterator[FakePushService]:
    with running() as svc:
        yield svc


def sender(svc: FakePushService, pauses: list[float] | None = None) -> WebPushSender:
    return WebPushSender(
        VapidKey.from_secret(SECRET),
        subject="mailto:ops@example.org",
        allow=parse_allow_list(svc.origin),
        sleep=(pauses.append if pauses is not None else lambda s: None),
        clock_s=lambda: 1_800_000_000.0,
    )


def target(browser: FakeBrowser) -> PushTarget:
    data = browser.to_json()
    return PushTarget(data["endpoint"], data["keys"]["p256dh"], data["keys"]["auth"])


def test_the_message_decrypts_with_the_subscriptions_private_key(push: FakePushService) -> None:
    browser = push.new_subscription("abc")
    delivery = sender(push).send(target(browser), MESSAGE, ttl=86400, urgency="high")
    assert delivery.outcome == "sent" and delivery.status == 201
    [request] = push.requests
    assert request.path == "/push/abc"
    assert request.headers["Content-Encoding"] == "aes128gcm"
    assert request.headers["TTL"] == "86400"
    assert request.headers["Urgency"] == "high"
    assert json.loads(browser.decrypt(request.body)) == MESSAGE
    # another browser's key does not open it
    with pytest.raises(Exception):  # noqa: B017 (http_ece raises a bare exception type)
        push.new_subscription().decrypt(request.body)


def test_the_vapid_jwt_verifies_against_the_public_key(push: FakePushService) -> None:
    browser = push.new_subscription()
    key = VapidKey.from_secret(SECRET)
    sender(push).send(target(browser), MESSAGE, ttl=60, urgency="normal")
    header = push.requests[0].headers["Authorization"]
    assert header.startswith("vapid t=")
    token_part, key_part = header[len("vapid ") :].split(", ")
    token = token_part.removeprefix("t=")
    public = key_part.removeprefix("k=")
    assert public == key.public_key
    point = b64u_decode(public)
    assert len(point) == 65 and point[0] == 4
    verifier = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    claims = jwt.decode(
        token, verifier, algorithms=["ES256"], audience=push.origin, options={"verify_exp": False}
    )
    assert claims["sub"] == "mailto:ops@example.org"
    assert claims["exp"] == 1_800_000_000 + 12 * 3600
    # a different key's public half refuses the signature
    other = ec.generate_private_key(ec.SECP256R1()).public_key()
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(token, other, algorithms=["ES256"], audience=push.origin)


def test_the_key_is_derived_once_and_stays_the_same() -> None:
    assert VapidKey.from_secret(SECRET).public_key == VapidKey.from_secret(SECRET).public_key
    assert VapidKey.from_secret(SECRET).public_key != VapidKey.from_secret(SECRET + "x").public_key
    with pytest.raises(ValueError):
        VapidKey.from_secret("short")


@pytest.mark.parametrize("status", [404, 410])
def test_gone_is_reported_so_the_subscription_is_forgotten(
    push: FakePushService, status: int
) -> None:
    push.answer(status)
    delivery = sender(push).send(target(push.new_subscription()), MESSAGE, ttl=60, urgency="normal")
    assert delivery.outcome == "gone" and delivery.attempts == 1
    assert len(push.requests) == 1


def test_429_and_5xx_are_retried_with_backoff(push: FakePushService) -> None:
    push.answer(429, {"Retry-After": "1"})
    push.answer(503)
    pauses: list[float] = []
    delivery = sender(push, pauses).send(
        target(push.new_subscription()), MESSAGE, ttl=60, urgency="normal"
    )
    assert delivery.outcome == "sent" and delivery.attempts == 3
    assert len(push.requests) == 3
    assert len(pauses) == 2 and pauses[0] >= 1.0  # the Retry-After was honoured


def test_a_push_service_that_keeps_failing_gives_up(push: FakePushService) -> None:
    for _ in range(3):
        push.answer(500)
    delivery = sender(push).send(target(push.new_subscription()), MESSAGE, ttl=60, urgency="low")
    assert delivery.outcome == "failed" and delivery.status == 500
    assert len(push.requests) == 3


def test_a_redirect_is_never_followed() -> None:
    with running() as elsewhere, running() as push:
        push.answer(307, {"Location": f"{elsewhere.origin}/push/x"})
        allow = parse_allow_list(f"{push.origin},{elsewhere.origin}")
        s = WebPushSender(
            VapidKey.from_secret(SECRET), subject="mailto:a@b.c", allow=allow, sleep=lambda s: None
        )
        delivery = s.send(target(push.new_subscription()), MESSAGE, ttl=60, urgency="normal")
        assert delivery.outcome == "failed" and delivery.status == 307
        assert len(push.requests) == 1
        assert elsewhere.connections == 0 and elsewhere.requests == []


def test_an_endpoint_off_the_list_is_never_contacted(push: FakePushService) -> None:
    browser = push.new_subscription()
    s = WebPushSender(
        VapidKey.from_secret(SECRET),
        subject="mailto:a@b.c",
        allow=parse_allow_list(None),  # the defaults: no loopback
        sleep=lambda s: None,
    )
    assert s.send(target(browser), MESSAGE, ttl=60, urgency="normal").outcome == "refused"
    assert push.connections == 0


def test_an_allowed_https_name_that_resolves_to_a_private_address_is_never_contacted() -> None:
    seen: list[tuple[str, int]] = []

    def resolve(host: str, port: int) -> list[str]:
        seen.append((host, port))
        return ["10.0.0.7"]

    s = WebPushSender(
        VapidKey.from_secret(SECRET),
        subject="mailto:a@b.c",
        allow=parse_allow_list(None),
        sleep=lambda s: None,
        resolve=resolve,
    )
    browser = FakeBrowser(
        ec.generate_private_key(ec.SECP256R1()), b"0123456789abcdef", "https://fcm.googleapis.com/x"
    )
    assert s.send(target(browser), MESSAGE, ttl=60, urgency="normal").outcome == "refused"
    assert seen == [("fcm.googleapis.com", 443)]
