"""Every way of naming an endpoint outside the operator's allow-list is refused."""

from __future__ import annotations

import pytest

from chalicelib.push_endpoints import (
    DEFAULT_ORIGINS,
    BadAllowEntry,
    EndpointNotAllowed,
    parse_allow_list,
)

DEFAULTS = parse_allow_list(None)
WITH_LOOPBACK = parse_allow_list("https://fcm.googleapis.com,http://127.0.0.1:8123")


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://fcm.googleapis.com/fcm/send/abc:def",
        "https://FCM.googleapis.com/fcm/send/abc",
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
        "https://web.push.apple.com/QGx0ZXN0",
        "https://wns2-par02p.notify.windows.com/w/?token=BQYAAA",
        "https://fcm.googleapis.com:443/fcm/send/x",
    ],
)
def test_the_major_browsers_services_are_allowed_by_default(endpoint: str) -> None:
    assert DEFAULTS.allows(endpoint)


REFUSED = [
    # plain http, even to an allowed host
    "http://fcm.googleapis.com/fcm/send/x",
    # another host, look-alikes, suffix tricks
    "https://evil.example/push",
    "https://fcm.googleapis.com.evil.example/x",
    "https://evilfcm.googleapis.com/x",
    "https://notify.windows.com/x",
    "https://fcm.googleapis.com./x",
    # another port than the entry's
    "https://fcm.googleapis.com:8443/x",
    # userinfo tricks
    "https://fcm.googleapis.com@169.254.169.254/latest/meta-data",
    "https://user:pass@fcm.googleapis.com/x",
    "https://169.254.169.254#@fcm.googleapis.com/",
    "https://169.254.169.254\\@fcm.googleapis.com/",
    # private, link-local, loopback and metadata addresses in every spelling
    "https://10.0.0.1/push",
    "https://192.168.1.1/push",
    "https://169.254.169.254/latest/meta-data/",
    "https://127.0.0.1/push",
    "http://127.0.0.1/push",
    "http://127.0.0.1:8124/push",
    "http://localhost:8123/push",
    "https://[::1]/push",
    "http://[::1]:8123/push",
    "https://[::ffff:127.0.0.1]/push",
    "https://[fe80::1]/push",
    "https://2130706433/push",
    "https://0x7f000001/push",
    "https://0177.0.0.1/push",
    "https://metadata.google.internal/computeMetadata/v1/",
    # other schemes and malformed URLs
    "ftp://fcm.googleapis.com/x",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "//fcm.googleapis.com/x",
    "https://fcm.googleapis.com:99999/x",
    "https://fcm.googleapis.com/x y",
    "https://fcm.googleapis.com/x\r\nHost: evil",
    "https://fcm.googleapis.com/x#frag",
    "https://fcm.googleapis.%63om/x",
    "https://fcm.googleapis.com/" + "a" * 3000,
    "",
    None,
    42,
]


@pytest.mark.parametrize("endpoint", REFUSED)
def test_anything_else_is_refused(endpoint: object) -> None:
    with pytest.raises(EndpointNotAllowed) as caught:
        WITH_LOOPBACK.check(endpoint)
    assert caught.value.code == "push_endpoint_not_allowed"
    assert not DEFAULTS.allows(endpoint)


def test_a_loopback_origin_passes_only_when_listed_exactly() -> None:
    assert WITH_LOOPBACK.allows("http://127.0.0.1:8123/push/abc")
    assert not DEFAULTS.allows("http://127.0.0.1:8123/push/abc")
    assert not WITH_LOOPBACK.allows("https://127.0.0.1:8123/push/abc")


@pytest.mark.parametrize(
    "entry",
    [
        "http://fcm.googleapis.com",
        "http://localhost:8123",
        "http://[::1]:8123",
        "http://10.0.0.1:80",
        "https://10.0.0.1",
        "https://user@fcm.googleapis.com",
        "https://fcm.googleapis.com/path",
        "https://*.com",
        "ftp://x.example",
        "fcm.googleapis.com",
    ],
)
def test_the_operator_cannot_list_what_is_never_allowed(entry: str) -> None:
    with pytest.raises(BadAllowEntry):
        parse_allow_list(entry)


def test_blank_means_the_defaults() -> None:
    assert parse_allow_list("  ") == parse_allow_list(",".join(DEFAULT_ORIGINS))
