"""WebSocket pushes through the API Gateway Management API (the Notifier port).

The endpoint is built from the deployed WebSocket API id, stage and region, since Chalice
configures ``app.websocket_api`` only inside WebSocket handlers. A push that fails never
fails the action that caused it: a gone connection (410) answers False so the caller can
forget it; a throttled or failing push is retried with backoff, and any error left is raised
for the caller (the fan-out) to log, count and go on.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from chalicelib.adapters._aws import LazyClient
from chalicelib.retry import with_backoff

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 128 * 1024


def endpoint_url(api_id: str, stage: str, region: str) -> str:
    """The management endpoint of a deployed WebSocket API stage."""
    return f"https://{api_id}.execute-api.{region}.amazonaws.com/{stage}"


class ApiGatewayNotifier:
    """Sends JSON messages to WebSocket connections with ``post_to_connection``."""

    def __init__(self, api_id: str, stage: str, region: str, *, client: Any = None) -> None:
        self.api_id = api_id
        self.stage = stage
        self.region = region
        self._client = LazyClient(
            "apigatewaymanagementapi",
            client=client,
            max_attempts=2,
            region_name=region,
            endpoint_url=endpoint_url(api_id, stage, region),
        )

    @property
    def client(self) -> Any:
        """The boto3 ``apigatewaymanagementapi`` client, created on first use."""
        return self._client.get()

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        """Push one message: True when delivered, False when the connection is gone (410);
        any other failure left after the retries is raised."""
        data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
        if len(data) > MAX_MESSAGE_BYTES:
            log.error("push to %s dropped: %d bytes is over the limit", connection_id, len(data))
            return True
        try:
            # A throttled or failing push is tried again a few times (nobody waits on it).
            with_backoff(
                lambda: self.client.post_to_connection(ConnectionId=connection_id, Data=data),
                what=f"push to {connection_id}",
            )
        except Exception as err:
            response = getattr(err, "response", None) or {}
            code = response.get("Error", {}).get("Code", "")
            status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if code == "GoneException" or status == 410:
                return False
            # Not gone, not delivered: raised for the caller to log and go on with the other
            # connections (and for the PushesFailed metric to count it).
            raise
        return True


if TYPE_CHECKING:  # mypy proves the adapter fits the port
    from chalicelib.ports import Notifier

    _notifier: Notifier = ApiGatewayNotifier("api", "ws", "us-east-1")
