"""Quick play's use cases: Play now, its status, cancel, the matcher's passes and wake-ups.

``Quickplay(service)`` works over a ``Service`` (its store, clock, limits and settings):

- ``enqueue``: a registered user's ticket (one per user: asking again answers the same
  ticket), then a matcher pass; a guest's ticket is matched at once to a bot table.
- ``match``: one pass of the matcher. It reads every queue (strongly consistent), lets the
  pure ``chalicelib.matchmaking.plan`` propose tables, and claims each with ONE conditional
  store write over the tickets it takes and the new room (``Store.claim_match``): a table
  whose tickets another pass took meanwhile is lost whole (``MatchLost``) and the pass reads
  again. Any request, the status poll and the wake-up run passes; none needs a lock.
- ``on_timer``: the backstop wake-up (EventBridge Scheduler on AWS, the local timers) armed
  for each ticket at the end of its wait, so a lone user's bot table starts without a request.
- ``leave``: a seat left during the countdown goes to a bot.

The room of a match is made already playing, its first round starting at ``starts_at`` (the
end of the countdown): joins are closed by the lobby's rules, seated players need no ready,
and the ordinary deadlines and wake-ups of the engine take over from there.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import replace
from typing import Any

from chalicelib import effects, matchmaking, notify, wire
from chalicelib.engine import game as game_flow
from chalicelib.engine.model import Player, Room, Settings, Status
from chalicelib.engine.systems import SYSTEMS
from chalicelib.engine.views import iso
from chalicelib.ports import (
    MatchLost,
    QueueTicket,
    RoomExists,
    StoreError,
    TicketHeld,
    Unavailable,
)
from chalicelib.retry import with_backoff
from chalicelib.service import limits
from chalicelib.service.callers import Caller
from chalicelib.service.core import Service, summary
from chalicelib.service.errors import Clash, NotAllowed, Unknown
from chalicelib.service.limits import source_key

log = logging.getLogger(__name__)

JsonDict = dict[str, Any]

TIMER_ID = "qp"
"""The id the quick-play wake-ups carry in place of a room id (room ids are hex)."""
WAITING_TTL_GRACE_SECONDS = 600
"""A waiting ticket nobody matched is forgotten this long after its wait ends (TTL)."""
MATCHED_TTL_SECONDS = 6 * 3600
"""A matched ticket is kept this long (the status poll answers it; then TTL)."""
PASS_ATTEMPTS = 4
"""A matcher pass reads again after a lost claim, this many times at most."""
QUEUES = (*SYSTEMS, matchmaking.ANY)


def ticket_out(t: QueueTicket) -> JsonDict:
    """A ticket as the API shows it."""
    out: JsonDict = {
        "id": t.id,
        "rules": t.rules,
        "status": t.status,
        "since": iso(t.since_ms),
        "room_id": t.room_id,
    }
    if t.group is not None:
        out["play_again"] = t.group
    return out


def _waiting(t: QueueTicket) -> matchmaking.Waiting:
    """A stored ticket as the matcher sees it."""
    return matchmaking.Waiting(
        t.id, t.user_id, t.rules, t.since_ms, t.rating, t.group, t.group_size
    )


def user_channel(user_id: str) -> str:
    """The subscription key of a user's own connections (pushes to the user, not a room)."""
    return f"user:{user_id}"


class Quickplay:
    """Quick play over one ``Service``."""

    def __init__(self, service: Service) -> None:
        self.svc = service
        self.store = service.store
        self.cfg = service.cfg

    # --- policy ----------------------------------------------------------------------

    @property
    def policy(self) -> matchmaking.Policy:
        """The matcher's policy from the settings (every system, in registry order)."""
        return matchmaking.Policy(
            wait_ms=self.cfg.quickplay_wait_seconds * 1000,
            sizes={name: system.quickplay_seats for name, system in SYSTEMS.items()},
            systems=tuple(SYSTEMS),
        )

    def _count(self, caller: Caller, source: str) -> None:
        """One Play now or cancel: limited per user and per source address (429)."""
        limits.hit(self.svc, limits.QUICKPLAY, caller.user_id)
        limits.hit(self.svc, limits.QUICKPLAY_SOURCE, source_key(source))

    # --- use cases -------------------------------------------------------------------

    def enqueue(
        self, caller: Caller, rules: str, play_again: str | None, source: str = "unknown"
    ) -> tuple[int, JsonDict]:
        """Play now: (status, answer). 202 a new ticket, 200 the ticket already held, 201 a
        guest's bot table.

        The request's own change is ONE store write: the ticket queued, or, when the ticket
        completes a table, the claim of that table with the ticket in it (never queued). A
        fault there is a 503 that wrote nothing. What follows (the wake-up, a pass for other
        tables now due) is after the commit: its faults are logged, never the caller's.
        """
        self._count(caller, source)
        user = self.svc.user(caller)
        now = self.svc.now()
        held = self._live_ticket(user.id, now)
        if held is not None:
            if held.status == "waiting":
                self._quiet_pass()
                held = self._read_back(held)
            return 200, {"ticket": ticket_out(held)}
        group, group_size = None, 0
        if play_again is not None:
            rules, group_size = self._play_again(user.id, play_again)
            group = play_again
        rating = 1500.0 if user.guest else self.store.get_ratings([user.id])[user.id]
        wait_s = self.cfg.quickplay_wait_seconds
        ticket = QueueTicket(
            id=secrets.token_hex(8),
            user_id=user.id,
            name=user.name,
            rules=rules,
            since_ms=now,
            rating=rating,
            expires_at_s=now // 1000 + wait_s + WAITING_TTL_GRACE_SECONDS,
            group=group,
            group_size=group_size,
        )
        try:
            if user.guest:
                # Guests sit at no other person's table: a bot table at once, in one write.
                system = self._system_for(rules)
                alone = matchmaking.Waiting(ticket.id, user.id, rules, now, rating)
                table = matchmaking.Table(system, (alone,), self.policy.size(system) - 1, "medium")
                bot_room = self._seat(table, {}, guest=True, new=ticket)
                matched = replace(ticket, status="matched", room_id=bot_room)
                return 201, {"ticket": ticket_out(matched)}
            room_id = self._queue_or_seat(ticket)
        except TicketHeld as err:
            current = err.current or self.store.user_ticket(user.id, now)
            if current is None:
                raise
            return 200, {"ticket": ticket_out(current)}
        if room_id is not None:
            return 202, {"ticket": ticket_out(replace(ticket, status="matched", room_id=room_id))}
        # The backstop: wake the matcher when this ticket's wait is over.
        self._arm(ticket.since_ms, now + wait_s * 1000)
        self._quiet_pass()
        return 202, {"ticket": ticket_out(self._read_back(ticket))}

    def _read_back(self, ticket: QueueTicket) -> QueueTicket:
        """The ticket as stored after a pass (which may have seated it); after the request's
        own commit, so a fault answers the ticket as it was, never a 503."""
        try:
            return self.store.user_ticket(ticket.user_id, self.svc.now()) or ticket
        except (Unavailable, StoreError):
            log.warning("reading a quick-play ticket back failed; answering it as it was")
            return ticket

    def _queue_or_seat(self, ticket: QueueTicket) -> str | None:
        """Seat ``ticket`` at once if it completes a table (one claim that stores it matched),
        else queue it; the room id, or None when it waits."""
        for _ in range(PASS_ATTEMPTS):
            now = self.svc.now()
            tickets = {
                t.id: t for t in self._waiting_now(now).values() if t.user_id != ticket.user_id
            }
            snapshot = [_waiting(t) for t in (*tickets.values(), ticket)]
            mine = next(
                (
                    table
                    for table in matchmaking.plan(snapshot, now, self.policy)
                    if any(w.ticket_id == ticket.id for w in table.tickets)
                ),
                None,
            )
            if mine is None:
                break
            try:
                return self._seat(mine, tickets, new=ticket)
            except MatchLost:
                continue  # another request took one of them: look again
        self.store.queue_ticket(ticket, self.svc.now())
        return None

    def _waiting_now(self, now: int) -> dict[str, QueueTicket]:
        """Every waiting ticket of every queue, by id (strongly consistent reads)."""
        return {t.id: t for queue in QUEUES for t in self.store.waiting_tickets(queue, now)}

    def _quiet_pass(self) -> None:
        """A matcher pass after the request's own change: its faults are logged, not raised
        (the tickets it would have seated wait for the next pass or the wake-up)."""
        try:
            self.match()
        except (Unavailable, StoreError):
            log.warning("a quick-play pass failed; the next request or wake-up matches")

    def _system_for(self, rules: str) -> str:
        return next(iter(SYSTEMS)) if rules == matchmaking.ANY else rules

    def _live_ticket(self, user_id: str, now: int) -> QueueTicket | None:
        """The user's ticket while it holds them: waiting, or matched to a table they still
        sit at (open, their seat human). A ticket of a table left or over holds nothing."""
        t = self.store.user_ticket(user_id, now)
        if t is None or t.status == "waiting":
            return t
        if t.room_id is None:
            return None
        stored = self.store.get_room(t.room_id)
        if stored is None:
            return None
        room = Room.from_dict(stored.state)
        seat = room.player_of_user(user_id)
        if room.status not in (Status.WAITING, Status.PLAYING) or seat is None:
            return None
        if room.status == Status.PLAYING and not seat.in_game:
            return None
        return t

    def _play_again(self, user_id: str, room_id: str) -> tuple[str, int]:
        """The rules and group size of "Play again" from finished quick-play ``room_id``."""
        stored = self.store.get_room(room_id)
        if stored is None:
            raise Unknown("no such room", code="unknown_room")
        room = Room.from_dict(stored.state)
        if not room.quickplay or room.player_of_user(user_id) is None:
            raise NotAllowed(
                "only players of a quick-play table can play it again", code="not_a_member"
            )
        if room.status != Status.FINISHED:
            raise Clash("only a finished game can be played again", code="not_finished")
        humans = [p for p in room.players if not p.is_bot and p.user_id]
        return room.settings.rules, len(humans)

    def status(self, caller: Caller | None) -> JsonDict:
        """The caller's ticket (a pass first when it waits) and how many wait per system."""
        ticket = None
        if caller is not None:
            now = self.svc.now()
            ticket = self.store.user_ticket(caller.user_id, now)
            if ticket is not None and ticket.status == "waiting":
                self._quiet_pass()
                ticket = self._read_back(ticket)
            elif ticket is not None and self._live_ticket(caller.user_id, now) is None:
                ticket = None
        counts = self.store.waiting_counts(list(QUEUES), self.svc.now())
        return {"ticket": ticket_out(ticket) if ticket else None, "waiting": counts}

    def cancel(self, caller: Caller, source: str = "unknown") -> None:
        """Cancel a waiting ticket (409 ``already_matched`` once it sits at a live table)."""
        self._count(caller, source)
        now = self.svc.now()
        before = self.store.cancel_ticket(caller.user_id, now)
        matched = before is not None and before.status == "matched"
        if matched and self._live_ticket(caller.user_id, now) is not None:
            raise Clash("the match is made: your table is waiting for you", code="already_matched")

    # --- the matcher -----------------------------------------------------------------

    def match(self) -> list[str]:
        """One matcher pass: claim every table the plan proposes; the rooms made."""
        made: list[str] = []
        for _ in range(PASS_ATTEMPTS):
            now = self.svc.now()
            tickets = self._waiting_now(now)
            tables = matchmaking.plan([_waiting(t) for t in tickets.values()], now, self.policy)
            lost = False
            for table in tables:
                try:
                    made.append(self._seat(table, tickets))
                except MatchLost:
                    lost = True  # another pass took a ticket: read again
            if not lost:
                break
        return made

    def _seat(
        self,
        table: matchmaking.Table,
        tickets: dict[str, QueueTicket],
        guest: bool = False,
        new: QueueTicket | None = None,
    ) -> str:
        """Make the table's room and claim its tickets (and ``new``, never queued) in one
        write; push ``match_found``."""
        if new is not None:
            tickets = {**tickets, new.id: new}
        now = self.svc.now()
        starts_at = now + self.cfg.quickplay_countdown_seconds * 1000
        room = Room(
            id=secrets.token_hex(8),
            host_id="",
            created_by_guest=guest,
            created_at=now,
            settings=Settings.parse({"rules": table.rules}),
            quickplay=True,
            starts_at=starts_at,
        )
        for w in table.tickets:
            t = tickets[w.ticket_id]
            room.players.append(
                Player(id=f"p{room.next_player_no}", name=t.name, kind="human", user_id=t.user_id)
            )
            room.next_player_no += 1
            room.players[-1].ready = True
        for n in range(1, table.bots + 1):
            room.players.append(
                Player(
                    id=f"p{room.next_player_no}",
                    name=f"Bot {n}",
                    kind="bot",
                    level=table.bot_level,
                    ready=True,
                )
            )
            room.next_player_no += 1
        room.host_id = room.players[0].id
        room.rated = not guest and len(table.tickets) >= 2
        events = game_flow.start_game(room, self.svc.deps.roller, starts_at, self.cfg.bot_think_ms)
        seated = [tickets[w.ticket_id] for w in table.tickets]
        claimed = [t for t in seated if new is None or t.id != new.id]
        matched_ttl = now // 1000 + MATCHED_TTL_SECONDS
        try:
            self.store.claim_match(
                claimed,
                room.id,
                room.to_dict(),
                summary(room),
                matched_ttl,
                new=new,
                now_ms=now,
                deadline_ms=game_flow.next_deadline(room),
            )
        except RoomExists:  # a random id taken: a bug or a one-in-2^64 draw; lost like a race
            raise MatchLost(f"room id {room.id} taken") from None
        self.svc.after(
            [
                *effects.plan(room, 1, events),
                *(
                    effects.PushToUser(user_channel(t.user_id), wire.match_found(t.id, room.id))
                    for t in seated
                ),
                # their browsers and devices too (issue 27), but not the one who just asked
                *(
                    notify.match_found_effect(t.user_id, room.id, room.settings.rules)
                    for t in claimed
                ),
            ]
        )
        log.info("quick play: room %s, %d humans, %d bots", room.id, len(seated), table.bots)
        return room.id

    def on_timer(self) -> JsonDict:
        """The backstop wake-up: a pass, then the next wake-up if anyone still waits."""
        made = self.match()
        now = self.svc.now()
        left = [_waiting(t) for t in self._waiting_now(now).values()]
        wake = matchmaking.next_wake_ms(left, self.policy)
        if wake is not None:
            self._arm(wake - self.policy.wait_ms, max(wake, now))
        return {"room_id": TIMER_ID, "rooms": made, "waiting": len(left)}

    def _arm(self, version: int, at_ms: int) -> None:
        """Arm the matcher's wake-up (after the ticket's write: a failure is logged, and the
        next request, poll or wake-up matches the ticket instead)."""
        try:
            with_backoff(
                lambda: self.svc.deps.timers.schedule(TIMER_ID, version, at_ms),
                what="quick-play wake-up",
            )
        except Exception:
            log.exception("arming the quick-play wake-up at %d failed", at_ms)
