"""Mobile push on AWS: SNS platform endpoints for APNs and FCM tokens (``ports.MobilePush``).

A device's token becomes an SNS platform endpoint of the configured platform application
(``SNS_APNS_APPLICATION_ARN``, ``SNS_FCM_APPLICATION_ARN``; docs/OPERATIONS.md). A message
is published to that endpoint as per-platform JSON: APNs gets an ``aps.alert`` with the title
and body and the rest of the documented payload beside it; FCM gets a ``notification`` and
the payload as ``data``. An endpoint SNS reports disabled (the platform said the token is
gone) or not found is ``gone``: the device is forgotten. ``RecordingMobilePush`` is the same
port for the local server and tests: it records what it would send.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from chalicelib.adapters._aws import LazyClient, error_code
from chalicelib.ports import DeviceRecord, Unavailable

JsonDict = dict[str, Any]


class InvalidToken(ValueError):
    """The platform refused the token (a 400 ``invalid_device_token`` for the client)."""


GONE_CODES = frozenset({"EndpointDisabled", "NotFound", "InvalidParameter"})


def platform_message(platform: str, message: JsonDict, ttl: int) -> tuple[str, JsonDict]:
    """SNS's ``Message`` (JSON per platform) and its message attributes for one device."""
    alert = {"title": message.get("title", ""), "body": message.get("body", "")}
    data = {k: v for k, v in message.items() if k not in ("title", "body")}
    if platform == "apns":
        key = "APNS"
        inner: JsonDict = {"aps": {"alert": alert, "sound": "default"}, **data}
    else:
        key = "GCM"
        inner = {"notification": alert, "data": {k: str(v) for k, v in data.items()}}
    body = json.dumps({"default": alert["body"], key: json.dumps(inner)})
    attribute = "AWS.SNS.MOBILE.APNS.TTL" if platform == "apns" else "AWS.SNS.MOBILE.FCM.TTL"
    return body, {attribute: {"DataType": "String", "StringValue": str(ttl)}}


class SnsMobilePush:
    """``ports.MobilePush`` through SNS platform applications (one ARN per platform)."""

    def __init__(
        self, applications: dict[str, str | None], region: str, *, client: Any = None
    ) -> None:
        self.applications = {k: v for k, v in applications.items() if v}
        self._sns = LazyClient("sns", client=client, region_name=region)

    def register(self, platform: str, token: str) -> str | None:
        arn = self.applications.get(platform)
        if arn is None:
            return None
        answer = self._sns.get().create_platform_endpoint(PlatformApplicationArn=arn, Token=token)
        endpoint: str = answer["EndpointArn"]
        return endpoint

    def send(self, device: DeviceRecord, message: JsonDict, ttl: int) -> str:
        if not device.endpoint_arn:
            return "failed"
        body, attributes = platform_message(device.platform, message, ttl)
        try:
            self._sns.get().publish(
                TargetArn=device.endpoint_arn,
                Message=body,
                MessageStructure="json",
                MessageAttributes=attributes,
            )
        except Unavailable:
            return "failed"
        except Exception as err:
            if error_code(err) in GONE_CODES:
                return "gone"
            raise
        return "sent"

    def unregister(self, device: DeviceRecord) -> None:
        if device.endpoint_arn:
            self._sns.get().delete_endpoint(EndpointArn=device.endpoint_arn)


class RecordingMobilePush:
    """``ports.MobilePush`` that records (local server, tests); a token in ``gone`` is gone."""

    def __init__(self) -> None:
        self.sent: list[tuple[DeviceRecord, str, JsonDict]] = []
        self.gone: set[str] = set()
        self.unregistered: list[str] = []
        self._lock = threading.Lock()

    def register(self, platform: str, token: str) -> str | None:
        digest = hashlib.sha256(token.encode()).hexdigest()[:16]
        return f"local:{platform}:{digest}"

    def send(self, device: DeviceRecord, message: JsonDict, ttl: int) -> str:
        if device.token in self.gone:
            return "gone"
        body, _ = platform_message(device.platform, message, ttl)
        with self._lock:
            self.sent.append((device, body, message))
        return "sent"

    def unregister(self, device: DeviceRecord) -> None:
        with self._lock:
            self.unregistered.append(device.token)
