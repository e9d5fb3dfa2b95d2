"""SQLite records: ratings, rated games, profile counters, the leaderboard, round records.

| table | key | columns |
|---|---|---|
| ``games`` | ``game_key`` | ``changes`` (JSON ``{user_id: delta}``), ``record`` (JSON) |
| ``rated_games`` | ``user_id``, ``sort_key`` (finished-at ms, 15 digits, ``#`` game key) | ``row`` (JSON) |
| ``users`` (shared with ``users``) | ``user_id`` | ``rating`` (decimal text, NULL = 1500), ``games``, ``finishes`` (JSON), ``listed`` |
| ``rounds`` | ``room_id``, ``round``, ``attempt`` | ``record`` (JSON), ``expires_at`` |

A finished game's ratings, outcomes and round records are written inside the room's write
(``rooms.save_room``) by the functions here that take the open transaction (``db``).
"""

from __future__ import annotations

import json
import sqlite3
from decimal import Context, Decimal

from chalicelib.adapters.policy import DEFAULT_RATING, MAX_RATING_CHANGES
from chalicelib.adapters.sqlite._base import IN_CHUNK, LIVE, Database, compact
from chalicelib.ports import (
    JsonDict,
    PlayerStats,
    RatingsWrite,
    Standing,
    TooManyRatingChanges,
    UnknownUser,
)

# DynamoDB numbers carry 38 significant digits; rating sums are done the same way here.
_DECIMAL = Context(prec=38)


def game_exists(db: sqlite3.Connection, game_key: str) -> bool:
    """Whether the game's record is stored (its ratings were applied)."""
    found = db.execute("SELECT 1 FROM games WHERE game_key = ?", (game_key,)).fetchone()
    return found is not None


def add_ratings(
    db: sqlite3.Connection, game_key: str, changes: dict[str, float], record: JsonDict
) -> None:
    """Add each delta and keep ``record`` (inside the caller's write transaction)."""
    for uid, delta in changes.items():
        row = db.execute("SELECT rating FROM users WHERE user_id = ?", (uid,)).fetchone()
        if row is None:
            raise UnknownUser("a rated user does not exist")  # rolls everything back
        base = Decimal(DEFAULT_RATING) if row[0] is None else Decimal(row[0])
        new = _DECIMAL.add(base, Decimal(repr(float(delta))))
        db.execute("UPDATE users SET rating = ? WHERE user_id = ?", (str(new), uid))
    db.execute(
        "INSERT INTO games (game_key, changes, record) VALUES (?, ?, ?)",
        (game_key, compact(changes), compact(record)),
    )


def add_outcomes(db: sqlite3.Connection, ratings: RatingsWrite) -> None:
    """Count each rated user's game and finish, list them, keep their profile row."""
    for uid, o in ratings.outcomes.items():
        if uid not in ratings.changes:
            continue
        row = db.execute("SELECT finishes FROM users WHERE user_id = ?", (uid,)).fetchone()
        if row is None:
            raise UnknownUser("a rated user does not exist")  # rolls everything back
        finishes: dict[str, int] = json.loads(row[0])
        finishes[str(o.rank)] = finishes.get(str(o.rank), 0) + 1
        db.execute(
            "UPDATE users SET games = games + 1, finishes = ?, listed = max(listed, ?)"
            " WHERE user_id = ?",
            (compact(finishes), int(o.listed), uid),
        )
        db.execute(
            "INSERT OR REPLACE INTO rated_games (user_id, sort_key, row) VALUES (?, ?, ?)",
            (uid, f"{o.finished_at_ms:015d}#{ratings.game_key}", compact(o.row)),
        )


def add_rounds(
    db: sqlite3.Connection,
    room_id: str,
    records: list[tuple[int, int, str]],
    expires_at_s: int | None,
) -> None:
    """Store each ``(round, attempt, record JSON)`` without a record yet (put-if-absent)."""
    for number, attempt, text in records:
        db.execute(
            "INSERT OR IGNORE INTO rounds (room_id, round, attempt, record, expires_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (room_id, number, attempt, text, expires_at_s),
        )


class SqliteRecords(Database):
    """Ratings, rated games and the leaderboard (``UserStore``), round records."""

    def list_rounds(self, room_id: str) -> list[JsonDict]:
        """The room's round records in round order, then attempt (empty when none)."""
        with self._read() as db:
            rows = db.execute(
                f"SELECT record FROM rounds WHERE room_id = ? AND {LIVE} ORDER BY round, attempt",
                (room_id, self._now_s()),
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def get_ratings(self, user_ids: list[str]) -> dict[str, float]:
        """Ratings of the given users (1500 for anyone without one)."""
        wanted = list(dict.fromkeys(user_ids))
        ratings = {uid: float(DEFAULT_RATING) for uid in wanted}
        with self._read_tx() as db:
            for start in range(0, len(wanted), IN_CHUNK):
                chunk = wanted[start : start + IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                for uid, rating in db.execute(
                    f"SELECT user_id, rating FROM users WHERE user_id IN ({marks})"
                    " AND rating IS NOT NULL",
                    chunk,
                ):
                    ratings[uid] = float(Decimal(rating))
        return ratings

    def apply_ratings(self, game_key: str, changes: dict[str, float], record: JsonDict) -> bool:
        """Add each delta and store the game record atomically, once; False if already applied."""
        if len(changes) > MAX_RATING_CHANGES:
            raise TooManyRatingChanges(f"{len(changes)} rating changes in one game")
        with self._write() as db:
            if game_exists(db, game_key):
                return False
            add_ratings(db, game_key, changes, record)
        return True

    def get_standings(self, user_ids: list[str]) -> dict[str, Standing]:
        """Rating (1500 default), rated games and guest flag of each existing user given."""
        wanted = list(dict.fromkeys(user_ids))
        found: dict[str, Standing] = {}
        with self._read_tx() as db:
            for start in range(0, len(wanted), IN_CHUNK):
                chunk = wanted[start : start + IN_CHUNK]
                marks = ",".join("?" * len(chunk))
                for uid, rating, games, guest in db.execute(
                    f"SELECT user_id, rating, games, guest FROM users WHERE user_id IN ({marks})"
                    f" AND {LIVE}",
                    [*chunk, self._now_s()],
                ):
                    found[uid] = Standing(_rating(rating), int(games), bool(guest))
        return {uid: found[uid] for uid in user_ids if uid in found}

    def get_player_stats(self, user_id: str) -> PlayerStats:
        """A user's rating, rated games and finishes (zeros for a user never rated)."""
        with self._read() as db:
            row = db.execute(
                f"SELECT rating, games, finishes FROM users WHERE user_id = ? AND {LIVE}",
                (user_id, self._now_s()),
            ).fetchone()
        if row is None:
            return PlayerStats(float(DEFAULT_RATING), 0, {})
        finishes = {int(rank): int(n) for rank, n in json.loads(row[2]).items()}
        return PlayerStats(_rating(row[0]), int(row[1]), finishes)

    def list_rated_games(self, user_id: str, limit: int) -> list[JsonDict]:
        """The ``row`` of the user's latest rated games, newest first."""
        if limit <= 0:
            return []
        with self._read() as db:
            rows = db.execute(
                "SELECT row FROM rated_games WHERE user_id = ? ORDER BY sort_key DESC LIMIT ?",
                (user_id, limit),
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def leaderboard(self, limit: int) -> list[JsonDict]:
        """Listed users by rating, highest first: ``{"user_id", "name", "rating", "games"}``.

        Read through the partial index of listed users (never the whole table).
        """
        with self._read() as db:
            rows = db.execute(
                "SELECT user_id, name, rating, games FROM users INDEXED BY users_listed"
                f" WHERE listed = 1 AND {LIVE}",
                (self._now_s(),),
            ).fetchall()
        found: list[JsonDict] = [
            {"user_id": uid, "name": name, "rating": _rating(rating), "games": int(games)}
            for uid, name, rating, games in rows
        ]
        found.sort(key=lambda r: (-r["rating"], r["name"].lower(), r["user_id"]))
        return found[: max(0, limit)]

    def get_game_record(self, game_key: str) -> JsonDict | None:
        """The record stored by ``apply_ratings`` for this game, or None."""
        with self._read() as db:
            row = db.execute("SELECT record FROM games WHERE game_key = ?", (game_key,)).fetchone()
        if row is None:
            return None
        record: JsonDict = json.loads(row[0])
        return record


def _rating(stored: str | None) -> float:
    return float(DEFAULT_RATING if stored is None else Decimal(stored))
