"""boto3 clients made on first use, shared by the adapters.

``chalice package`` imports the app with no environment, and a cold start should pay only for
the clients it uses, so no adapter builds its client in ``__init__``.
"""

from __future__ import annotations

import threading
from typing import Any


class LazyClient:
    """A boto3 client for ``service``, created on the first ``get()`` (or the one injected)."""

    def __init__(
        self, service: str, *, client: Any = None, max_attempts: int = 3, **kwargs: Any
    ) -> None:
        self._service = service
        self._client = client
        self._max_attempts = max_attempts
        self._kwargs = kwargs
        self._lock = threading.Lock()

    @property
    def created(self) -> bool:
        """Whether the client exists yet (injected or made by ``get``)."""
        return self._client is not None

    def get(self) -> Any:
        """The client, created once even under concurrent first calls."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    import boto3
                    from botocore.config import Config

                    config = Config(
                        retries={"mode": "standard", "max_attempts": self._max_attempts}
                    )
                    self._client = boto3.client(self._service, config=config, **self._kwargs)
        return self._client
