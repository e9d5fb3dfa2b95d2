"""Adapters: the only modules that import boto3/botocore (always lazily, inside functions).

- ``dynamo``: ``DynamoStore``, the single-table DynamoDB store, one module per aggregate
  (see docs/STORAGE.md).
- ``notifier``: ``ApiGatewayNotifier``, pushes to WebSocket connections.
- ``scheduler``: ``SchedulerTimers``, one-time EventBridge Scheduler wake-ups for rooms.
- ``secrets``: the token-signing secret from Secrets Manager, SSM or the environment.
- ``sqlite``: ``SqliteStore``, the same Store semantics in one SQLite file (the local server's
  default) or in memory (the store fake of unit tests), one module per aggregate.
- ``policy``: what both stores keep alike (TTLs, the lobby's order, ids, the rating limit).
- ``fakes``: recording fakes of the notifier, timers and clock, for tests and benchmarks.
"""
