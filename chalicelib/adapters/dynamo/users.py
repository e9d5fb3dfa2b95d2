"""Users: profiles, usernames, preferences and invitations.

| item       | pk                   | sk               | main attributes                        |
|------------|----------------------|------------------|----------------------------------------|
| user       | USER#<user_id>       | PROFILE          | name, guest, username, password_hash, continue_mode, language, created_at, expires_at (guests) |
| username   | USERNAME#<lowercase> | USERNAME         | user_id                                |
| invitation | USER#<user_id>       | INVITE#<room_id> | room_id, host_name, at, expires_at     |

A user's ratings and game counters live on the same profile item; ``records`` writes them.
"""

from __future__ import annotations

from chalicelib.adapters.dynamo._table import (
    Item,
    Table,
    cancellation_codes,
    conditional_check_failed,
    failed_at,
    key,
    n,
    s,
)
from chalicelib.adapters.policy import INVITATION_TTL_SECONDS
from chalicelib.ports import JsonDict, UnknownUser, UserExists, UsernameTaken, UserRecord


class DynamoUsers(Table):
    """Users, usernames, preferences and invitations (the UserStore but its game records)."""

    def create_user(
        self,
        user_id: str,
        username: str | None,
        password_hash: str | None,
        guest: bool,
        name: str,
        *,
        now_ms: int = 0,
        expires_at_s: int | None = None,
    ) -> UserRecord:
        """Create a user; raise UsernameTaken or UserExists (``expires_at_s``: the TTL)."""
        item: Item = {
            **key(f"USER#{user_id}", "PROFILE"),
            "user_id": s(user_id),
            "name": s(name),
            "guest": {"BOOL": guest},
            "continue_mode": s("auto"),
            "created_at": n(now_ms),
        }
        if username is not None:
            item["username"] = s(username)
        if password_hash is not None:
            item["password_hash"] = s(password_hash)
        if expires_at_s is not None:
            item["expires_at"] = n(expires_at_s)
        put_user = {
            "TableName": self.table_name,
            "Item": item,
            # A user id is created once: never overwrite a profile.
            "ConditionExpression": "attribute_not_exists(pk)",
        }
        try:
            if username is None:
                self.client.put_item(**put_user)
            else:
                put_name = {
                    "TableName": self.table_name,
                    "Item": {
                        **key(f"USERNAME#{username.lower()}", "USERNAME"),
                        "user_id": s(user_id),
                    },
                    # Username uniqueness (case-insensitive): the name is claimed once.
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
                self._transact([{"Put": put_user}, {"Put": put_name}])
        except Exception as err:
            if conditional_check_failed(err):
                raise UserExists(f"user {user_id} exists") from None
            reasons = cancellation_codes(err)
            if failed_at(reasons, 1):
                raise UsernameTaken(f"username {username!r} is taken") from None
            if failed_at(reasons, 0):
                raise UserExists(f"user {user_id} exists") from None
            raise
        return _user_from_item(item)

    def get_user(self, user_id: str) -> UserRecord | None:
        """Read a user by id (one GetItem)."""
        item = self._get(f"USER#{user_id}", "PROFILE")
        return _user_from_item(item) if item else None

    def get_user_by_username(self, username: str) -> UserRecord | None:
        """Read a user by username, case-insensitively (two GetItems)."""
        item = self._get(f"USERNAME#{username.lower()}", "USERNAME")
        return self.get_user(item["user_id"]["S"]) if item else None

    def _update_profile(self, user_id: str, attribute: str, value: str) -> None:
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key=key(f"USER#{user_id}", "PROFILE"),
                UpdateExpression="SET #a = :v",
                # Only existing users: an update must not create a stray profile.
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#a": attribute},
                ExpressionAttributeValues={":v": s(value)},
            )
        except Exception as err:
            if conditional_check_failed(err):
                raise UnknownUser(f"no user {user_id}") from None
            raise

    def set_preferences(self, user_id: str, continue_mode: str) -> None:
        """Store the user's continue mode; raise UnknownUser."""
        self._update_profile(user_id, "continue_mode", continue_mode)

    def set_language(self, user_id: str, language: str) -> None:
        """Store the user's interface language; raise UnknownUser."""
        self._update_profile(user_id, "language", language)

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        """Replace a user's password hash; raise UnknownUser."""
        self._update_profile(user_id, "password_hash", password_hash)

    def add_invitation(
        self, user_id: str, room_id: str, host_name: str, *, now_ms: int | None = None
    ) -> None:
        """Invite ``user_id`` to ``room_id`` (kept 7 days when ``now_ms`` is given)."""
        item: Item = {
            **key(f"USER#{user_id}", f"INVITE#{room_id}"),
            "room_id": s(room_id),
            "host_name": s(host_name),
            "at": n(now_ms or 0),
        }
        if now_ms is not None:
            item["expires_at"] = n(now_ms // 1000 + INVITATION_TTL_SECONDS)
        self.client.put_item(TableName=self.table_name, Item=item)

    def list_invitations(self, user_id: str) -> list[JsonDict]:
        """The user's invitations ``[{"room_id", "host_name"}]``, oldest first."""
        items = self._query_all(f"USER#{user_id}", "INVITE#")
        items.sort(key=lambda it: (int(it["at"]["N"]), it["room_id"]["S"]))
        return [{"room_id": it["room_id"]["S"], "host_name": it["host_name"]["S"]} for it in items]

    def remove_invitation(self, user_id: str, room_id: str) -> None:
        """Forget an invitation (missing is fine)."""
        self.client.delete_item(
            TableName=self.table_name, Key=key(f"USER#{user_id}", f"INVITE#{room_id}")
        )


def _user_from_item(item: Item) -> UserRecord:
    return UserRecord(
        id=item["user_id"]["S"],
        name=item["name"]["S"],
        guest=bool(item["guest"]["BOOL"]),
        username=item["username"]["S"] if "username" in item else None,
        password_hash=item["password_hash"]["S"] if "password_hash" in item else None,
        continue_mode=item.get("continue_mode", {}).get("S", "auto"),
        created_at_ms=int(item.get("created_at", {}).get("N", "0")),
        expires_at_s=int(item["expires_at"]["N"]) if "expires_at" in item else None,
        language=item["language"]["S"] if "language" in item else None,
    )
