"""DynamoDB store: everything in ONE table (single-table design, see docs/STORAGE.md).

Keys are strings ``pk`` and ``sk``; ``expires_at`` (epoch seconds) is the TTL attribute; the
global secondary index ``gsi1`` (``gsi1pk`` = ``LOBBY#<status>``, ``gsi1sk`` = zero-padded
created-at ms + room id, projecting only ``room_id`` and ``summary``) serves the lobby list,
and ``gsi2`` (sparse, sharded) the leaderboard.

One module per aggregate, each a ``Table`` with the methods of its port and the table of its
items in its docstring:

- ``rooms``: rooms (versioned, state compressed with a preset dictionary), the open-room cap;
- ``users``: profiles, usernames, preferences, invitations;
- ``records``: ratings, rated games, the leaderboard and round records;
- ``chat``: chat messages;
- ``limits``: rate-limit windows;
- ``connections``: WebSocket connections, subscriptions and tickets;
- ``notifications``: each user's seats ("my games"), push subscriptions and devices;
- ``quickplay``: quick play's tickets and queues, matches claimed in one transaction;
- ``_table``: what they share (the client, keys, typed values, JSON codec, transactions).

``DynamoStore`` is all of them on one client. Only these modules and their siblings import
boto3; the client is made on first use, and is exposed as ``DynamoStore.client`` so a
benchmark can hook its events (``count_requests``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.adapters.dynamo._table import Table, count_requests
from chalicelib.adapters.dynamo.chat import DynamoChat
from chalicelib.adapters.dynamo.connections import DynamoConnections
from chalicelib.adapters.dynamo.limits import DynamoLimits
from chalicelib.adapters.dynamo.notifications import DynamoNotifications
from chalicelib.adapters.dynamo.quickplay import DynamoQuickplay
from chalicelib.adapters.dynamo.records import DynamoRecords
from chalicelib.adapters.dynamo.rooms import (
    STATE_DICTIONARY_FILE,
    DynamoRooms,
    decode_state,
    encode_state,
    state_dictionaries,
)
from chalicelib.adapters.dynamo.users import DynamoUsers


class DynamoStore(
    DynamoQuickplay,
    DynamoRooms,
    DynamoUsers,
    DynamoRecords,
    DynamoChat,
    DynamoLimits,
    DynamoConnections,
    DynamoNotifications,
):
    """The Store port on one DynamoDB table: every aggregate on one client.

    Constructed as ``DynamoStore(table_name, region=None, *, client=None,
    connection_ttl_seconds=3 * 3600)``: the constructor of ``DynamoConnections``, the one
    aggregate with a setting of its own (the others take ``Table``'s).
    """


__all__ = [
    "STATE_DICTIONARY_FILE",
    "DynamoStore",
    "Table",
    "count_requests",
    "decode_state",
    "encode_state",
    "state_dictionaries",
]

if TYPE_CHECKING:  # mypy proves each aggregate fits its port, and the whole the Store
    from chalicelib.ports import ChatStore, RateLimiter, RealtimeStore, Store

    _store: Store = DynamoStore("table")
    _chat: ChatStore = DynamoChat("table")
    _limits: RateLimiter = DynamoLimits("table")
    _connections: RealtimeStore = DynamoConnections("table")
