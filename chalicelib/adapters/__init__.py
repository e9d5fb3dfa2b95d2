"""Adapters: the only modules that import boto3/botocore (always lazily, inside functions).

- ``dynamo``: ``DynamoStore``, the single-table DynamoDB store (see docs/STORAGE.md).
- ``notifier``: ``ApiGatewayNotifier``, pushes to WebSocket connections.
- ``scheduler``: ``SchedulerTimers``, one-time EventBridge Scheduler wake-ups for rooms.
- ``secrets``: the token-signing secret from Secrets Manager, SSM or the environment.
- ``memory``: in-memory fakes with the same semantics, for unit tests and the local server.
"""
