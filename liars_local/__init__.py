"""The one-command local server: the same Chalice app served on one loopback port.

REST routes run through Chalice's own local gateway, WebSocket handlers are called with
API-Gateway-shaped events at ``/ws``, a precise timer loop stands in for EventBridge
Scheduler, and storage is a SQLite file in a data folder (or moto, or a DynamoDB endpoint;
ARCHITECTURE.md decision 8).
"""
