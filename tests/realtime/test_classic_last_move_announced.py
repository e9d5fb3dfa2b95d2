"""The move that puts the last person out is announced, even when the bots then finish at once.

SPEC §3: every bid and call is announced in the push of the change that made it; §8: once no
human has dice, the bots may finish the game at once ("its results and dice progress tell the
rest"). Against nine bots with the default five dice, the change in which the last person loses
their last die also holds the bots' whole play-out: hundreds of events, more than one 32 KB
frame. That push must still announce what the person saw happen (their own call, the challenge
that cost them the die, their elimination), not drop every event of the change.
"""

from __future__ import annotations

import json
from typing import Any

from chalicelib import wire, wiring
from chalicelib.adapters.fakes import FakeClock, FakeNotifier, FakeTimers
from chalicelib.adapters.sqlite import SqliteStore
from chalicelib.effects import publish
from chalicelib.engine import game as game_flow
from chalicelib.engine import room as lobby
from chalicelib.engine.dice import SeededRoller
from chalicelib.engine.model import Phase, Room
from chalicelib.engine.views import events_for

T0 = 1_700_000_000_000


def _last_change_of_the_person(seed: int) -> tuple[Room, list[dict[str, Any]]]:
    """One person against nine bots (default settings) who always calls Liar! (or opens one 1);
    the room and the events of the change in which the person lost their last die."""
    roller = SeededRoller(seed)
    host = lobby.UserRef("u-host", "host", False)
    room = lobby.create_room("r1", host, {}, T0)
    for _ in range(9):
        lobby.add_bot(room, host, "strong")
    lobby.start(room, host, roller, T0)
    me = room.players[0]
    now = T0
    while True:
        game = room.game
        assert game is not None
        if game.phase != Phase.BIDDING:
            assert game.deadline is not None
            now = game.deadline
            events = game_flow.advance(room, now, roller)
        else:
            assert game.turn_player == me.id
            now = game.clock + 100
            action: dict[str, Any] = (
                {"type": "liar", "turn": game.turn}
                if game.current_bid is not None
                else {"type": "bid", "quantity": 1, "face": 1, "turn": game.turn}
            )
            events = game_flow.act(room, me.id, action, roller, now)
        if me.eliminated:
            return room, events


def test_the_push_that_puts_the_last_person_out_announces_their_move_and_their_loss() -> None:
    room, events = _last_change_of_the_person(3)
    me = room.players[0]
    clock = FakeClock(T0)
    deps = wiring.Deps(
        store=SqliteStore(clock=clock),
        notifier=FakeNotifier(),
        timers=FakeTimers(),
        clock=clock,
        roller=SeededRoller(1),
    )
    deps.store.put_connection("person", "u-host", T0)
    deps.store.subscribe("person", "r1")
    shown = events_for(room, events, 9)  # as publish() shows them: with ids
    # the case this test is about: the whole change does not fit one frame
    assert wire.encoded_size({"type": "room", "room": {}, "events": shown}) > wire.MAX_PUSH_BYTES

    publish(room, 9, events, deps=deps)
    [(_, message)] = deps.notifier.sent
    view = wire.view(room, 9, "u-host", clock.now_ms())
    text_message, text = wire.room_push(view, shown)
    for pushed in (message, text_message):
        assert pushed["type"] == "room"
        assert wire.encoded_size(pushed) < wire.MAX_PUSH_BYTES
        got = pushed["events"]
        # what is announced is what happened, in order, from the start of the change
        assert got == shown[: len(got)]
        assert pushed.get("events_dropped") is True
        # as many as fit: one more would not
        one_more = {**pushed, "events": shown[: len(got) + 1]}
        assert wire.encoded_size(one_more) >= wire.MAX_PUSH_BYTES
        kinds = [(e["type"], e.get("player_id"), e.get("by")) for e in got]
        assert kinds[0][2] == "player" and kinds[0][1] == me.id, kinds[:3]
        assert ("player_eliminated", me.id, None) in kinds
        lost = [e for e in got if e["type"] == "challenge_resolved" and e["loser_id"] == me.id]
        assert lost, "the challenge that cost the person their last die is announced"
    assert json.loads(text) == text_message
