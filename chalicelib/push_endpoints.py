"""Which Web Push endpoints the server may ever contact: the operator's allow-list.

A browser's push subscription names an endpoint URL, and the server later sends an HTTP
request to it. The URL comes from a client, so without a check it would let anyone make the
server call any address (SSRF: an internal service, a cloud metadata address). The server
therefore sends only to endpoints whose origin is on the operator's list
(``PUSH_ENDPOINT_ALLOW``, comma-separated origins, docs/OPERATIONS.md):

- an entry is ``https://host`` (optionally ``:port``), or ``https://*.suffix`` for every
  host under ``suffix`` (Windows' push service has one host per region);
- an ``http://`` entry is accepted only for an IPv4 loopback address given literally
  (``http://127.0.0.1:8123``: a test push service on the same machine), never a name;
- the defaults are the major browsers' push services, HTTPS only (``DEFAULT_ORIGINS``).

An endpoint passes when its scheme, host and port equal an entry's (the host compared
lower-case, label by label for a wildcard), it carries no user information (``user@host``),
no fragment, no whitespace or control characters, and its host is not an IP address unless
an ``http://`` loopback entry names exactly that address and port. Everything else is refused
(``push_endpoint_not_allowed``) before any connection is made. The sender checks the endpoint
again before each request and never follows a redirect (``chalicelib.webpush``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

DEFAULT_ORIGINS: tuple[str, ...] = (
    "https://fcm.googleapis.com",  # Chrome, Chromium-based browsers, Android
    "https://updates.push.services.mozilla.com",  # Firefox
    "https://web.push.apple.com",  # Safari (macOS 13+, iOS 16.4+ home-screen apps)
    "https://*.notify.windows.com",  # Edge (Windows Push Notification Services)
)
"""The push services of the major browsers (the allow-list when none is configured)."""

MAX_ENDPOINT_LENGTH = 2048
"""Endpoints are opaque URLs of a few hundred characters; anything longer is refused."""

_DEFAULT_PORTS = {"https": 443, "http": 80}


class BadAllowEntry(ValueError):
    """An entry of ``PUSH_ENDPOINT_ALLOW`` is not an origin the list can hold."""


class EndpointNotAllowed(ValueError):
    """An endpoint is not on the allow-list (the error code ``push_endpoint_not_allowed``)."""

    code = "push_endpoint_not_allowed"


@dataclass(frozen=True, slots=True)
class AllowEntry:
    """One allowed origin: scheme, host (or ``*.suffix``'s suffix) and port."""

    scheme: str
    host: str
    port: int
    wildcard: bool = False

    def matches(self, scheme: str, host: str, port: int) -> bool:
        if scheme != self.scheme or port != self.port:
            return False
        if self.wildcard:
            return host.endswith("." + self.host) and len(host) > len(self.host) + 1
        return host == self.host


@dataclass(frozen=True, slots=True)
class AllowList:
    """The allowed endpoint origins (``parse_allow_list`` builds it)."""

    entries: tuple[AllowEntry, ...]

    def check(self, endpoint: object) -> SplitResult:
        """The parsed endpoint when allowed; raise ``EndpointNotAllowed`` otherwise."""
        parts = _parse_endpoint(endpoint)
        host = parts.hostname or ""
        port = _port(parts)
        if not any(e.matches(parts.scheme, host, port) for e in self.entries):
            raise EndpointNotAllowed("this push endpoint's origin is not on the server's list")
        return parts

    def allows(self, endpoint: object) -> bool:
        try:
            self.check(endpoint)
        except EndpointNotAllowed:
            return False
        return True


def parse_allow_list(text: str | None) -> AllowList:
    """``PUSH_ENDPOINT_ALLOW``'s value (``None`` or blank: the defaults); raise BadAllowEntry."""
    raw = [item.strip() for item in (text or "").split(",") if item.strip()]
    items = raw or list(DEFAULT_ORIGINS)
    return AllowList(tuple(_entry(item) for item in items))


def _entry(item: str) -> AllowEntry:
    try:
        parts = urlsplit(item)
        port = parts.port
    except ValueError:
        raise BadAllowEntry(f"{item!r} is not an origin") from None
    if (
        parts.scheme not in _DEFAULT_PORTS
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
        or not parts.hostname
    ):
        raise BadAllowEntry(f"{item!r} is not an origin (scheme://host[:port])")
    host = parts.hostname.lower()
    port = port or _DEFAULT_PORTS[parts.scheme]
    if parts.scheme == "http":
        if not _is_ipv4_loopback(host):
            raise BadAllowEntry(
                f"{item!r}: http:// is allowed only for a literal IPv4 loopback address"
            )
        return AllowEntry("http", host, port)
    wildcard = host.startswith("*.")
    if wildcard:
        host = host[2:]
    if not _is_dns_name(host) or (wildcard and host.count(".") < 1):
        raise BadAllowEntry(f"{item!r}: an https:// entry names a host (or *.domain)")
    return AllowEntry("https", host, port, wildcard)


def _parse_endpoint(endpoint: object) -> SplitResult:
    refuse = EndpointNotAllowed("this push endpoint's origin is not on the server's list")
    if not isinstance(endpoint, str) or not 0 < len(endpoint) <= MAX_ENDPOINT_LENGTH:
        raise refuse
    if not endpoint.isascii() or any(c <= " " or c in "\\\x7f" for c in endpoint):
        raise refuse
    try:
        parts = urlsplit(endpoint)
        _port(parts)
    except ValueError:
        raise refuse from None
    if parts.scheme not in _DEFAULT_PORTS or "@" in parts.netloc or parts.fragment:
        raise refuse
    host = parts.hostname
    if not host or host.endswith("."):
        raise refuse
    if _is_ip(host):
        # an address literal passes only when an http:// loopback entry names it exactly
        if parts.scheme != "http" or not _is_ipv4_loopback(host):
            raise refuse
    elif not _is_dns_name(host):
        raise refuse
    return parts


def _port(parts: SplitResult) -> int:
    return parts.port or _DEFAULT_PORTS.get(parts.scheme, 0)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _is_ipv4_loopback(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.version == 4 and address.is_loopback


def _is_dns_name(host: str) -> bool:
    labels = host.split(".")
    if len(labels) < 2 or labels[-1].isdigit():
        return False  # a single label ("localhost", an intranet name) or a numeric "host"
    return all(
        0 < len(label) <= 63
        and all(c.isalnum() or c == "-" for c in label)
        and not label.startswith("-")
        and not label.endswith("-")
        for label in labels
    )
