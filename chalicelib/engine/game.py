"""The shared game flow: rounds, turns and deadlines, breaks, final reveal, resignation, ranks.

Why it is over 600 lines: it is one state machine (bidding, break, final reveal) whose
transitions keep the same invariants (deadlines stamped from the last event, the vote, the
opener after a resignation); split, those invariants would be spread over modules.

Every transition takes the time ``now`` (epoch ms) and a ``Roller``; nothing here reads a
clock or the environment. Transitions validate first and mutate only once the action is known
to be legal, so a ``DomainError`` leaves the room unchanged. Each returns the list of events
(dicts with ``type`` and ``at``) that clients play at their stamps (``views.events_for``
puts them on the wire).

``advance(room, now, roller)`` applies every deadline that has passed, in order, each at its
own deadline time, so the game unfolds exactly as if every timer had fired on time.

Bots are paced like players (table time): each bot move is stamped a think time (drawn from
the roller within ``Game.pace``) after the event before it, and a bot's Liar! is followed by
the reveal after a think time of its own. A turn's deadline counts from the stamp that began
it, a break's and the final reveal's from the reveal. Stamps may lie after ``now``: clients
play the events at their stamps. ``Game.clock`` keeps the latest stamp, so stamps never go
back in time. A table where no human still has dice plays on without pauses.
"""

from __future__ import annotations

from typing import Any

from .commands import Command
from .dice import Roller
from .errors import (
    DomainError,
    InvalidAction,
    NotAPlayer,
    NotYourTurn,
    StaleTurn,
    WrongPhase,
)
from .events import (
    Agreed,
    BreakEnded,
    BreakStarted,
    ChallengeResolved,
    FinalRevealStarted,
    GameFinished,
    GameStarted,
    PlayerEliminated,
    PlayerReplaced,
    PlayerResigned,
    RoundRestarted,
    RoundStarted,
    TurnTimedOut,
    record,
)
from .model import (
    BOT_THINK_MS,
    FINAL_REVEAL_MS,
    CompletedRound,
    Game,
    Phase,
    Player,
    Reveal,
    Room,
    Status,
)
from .systems import TURN_ACTIONS, command_of, rule_system

Event = dict[str, Any]
"""An event as transitions return it (``events.record`` of an event dataclass)."""


MAX_ADVANCE_STEPS = 100_000
"""A guard against a bug looping forever; a real game ends long before."""

BOT_PLAYOUT_ROUNDS = 100
"""Rounds the bots play at once after the last human's dice are gone, before the rest is
decided by the dice they hold. A game whose dice leave it ends within 100 rounds at the
largest table (10 × 10); under the *give* penalty no die leaves, and bots alone can pass the
dice back and forth for thousands of rounds inside one request."""


# -- helpers ----------------------------------------------------------------------------------


def _game(room: Room) -> Game:
    if room.game is None or room.status != Status.PLAYING:
        raise WrongPhase("the game is not in play")
    return room.game


def in_game(room: Room) -> list[Player]:
    """Players still in the game, in seat order."""
    return room.in_game()


def _opener_from(room: Room, player_id: str) -> Player:
    """``player_id`` if still in the game, else the next one clockwise."""
    p = room.player(player_id)
    if p is not None and p.in_game:
        return p
    return room.next_clockwise(player_id)


def _lowest_free_rank(room: Room) -> int:
    """Each elimination or resignation takes the lowest rank still free."""
    return len(in_game(room))


def _record_progress(room: Room, restart: bool) -> None:
    game = room.game
    assert game is not None
    counts = [p.dice_count if p.in_game else 0 for p in room.players]
    if restart and game.progress_rounds and game.progress_rounds[-1] == game.round:
        game.dice_progress[-1] = counts
    else:
        game.dice_progress.append(counts)
        game.progress_rounds.append(game.round)


def think_time(room: Room, roller: Roller) -> int:
    """A bot's think time in ms, drawn from the roller; 0 once no human still has dice."""
    game = room.game
    assert game is not None
    if not _humans_hold_dice(room):
        return 0
    low, high = game.pace
    return low + roller.below(high - low + 1) if high > low else low


def _last_at(events: list[Event], at: int) -> int:
    """The stamp of the latest event so far (``at`` when there is none later).

    Stamps never go back within a change, so the latest is the last one.
    """
    return max(at, int(events[-1]["at"])) if events else at


def _settle(room: Room, events: list[Event]) -> None:
    """Keep the table clock at the latest stamp."""
    if room.game is not None and events:
        room.game.clock = _last_at(events, room.game.clock)


def _begin_turn(room: Room, player: Player, at: int) -> None:
    game = room.game
    assert game is not None
    game.turn += 1
    game.turn_player = player.id
    game.deadline = at + room.settings.turn_seconds * 1000


def _start_round(
    room: Room,
    opener: Player,
    roller: Roller,
    at: int,
    events: list[Event],
    *,
    restart: bool = False,
) -> None:
    game = room.game
    assert game is not None
    if restart:
        game.attempt += 1
    else:
        game.round += 1
        game.attempt = 0
    game.phase = Phase.BIDDING
    game.current_bid = None
    game.round_bids = []
    game.agreed = []
    game.opener = opener.id
    rule_system(room.settings.rules).deal(room, roller)
    _record_progress(room, restart)
    events.append(record((RoundRestarted if restart else RoundStarted)(game.round, opener.id, at)))
    _begin_turn(room, opener, at)


def _finish(room: Room, at: int, events: list[Event]) -> None:
    """The last player with dice ranks first; results are published."""
    game = room.game
    assert game is not None
    for p in in_game(room):
        p.rank = 1
    for p in room.players:
        p.hand = []
    game.phase = Phase.FINISHED
    game.turn_player = None
    game.deadline = None
    game.current_bid = None
    game.round_bids = []
    game.agreed = []
    game.finished_at = at
    game.dice_progress.append([p.dice_count if p.in_game else 0 for p in room.players])
    game.progress_rounds.append(game.round)
    room.status = Status.FINISHED
    ranking = sorted((p for p in room.players), key=lambda p: p.rank or 0)
    room.results = {
        "ranking": [
            {"player_id": p.id, "rank": p.rank, "rating_before": None, "rating_after": None}
            for p in ranking
        ],
    }
    winner_id = next((p.id for p in room.players if p.rank == 1), None)
    events.append(record(GameFinished(at, winner_id)))


def _humans_hold_dice(room: Room) -> bool:
    return any(p.in_game and not p.is_bot for p in room.players)


def _decide_by_dice(room: Room, at: int, events: list[Event]) -> None:
    """End a bots-only play-out: fewer dice rank lower (a later seat first on a tie).

    The round just dealt is not played; the last round's reveal becomes the final one, and the
    game ends as every game does, after the final reveal's moment.
    """
    game = room.game
    assert game is not None
    seats = {p.id: i for i, p in enumerate(room.players)}
    order = sorted(in_game(room), key=lambda p: (p.dice_count, -seats[p.id]))
    if room.settings.penalty == "give":
        # As if the leader had won them: under give the dice stay in the game.
        order[-1].dice_count += sum(p.dice_count for p in order[:-1])
    for p in order[:-1]:
        _eliminate(room, p, at, events)
    for p in room.players:
        p.hand = []
    game.current_bid = None
    game.round_bids = []
    game.turn_player = None
    _begin_final_reveal(room, game.last_reveal, at, events)


def _begin_final_reveal(room: Room, reveal: Reveal | None, at: int, events: list[Event]) -> None:
    """The deciding reveal shows for ``FINAL_REVEAL_MS``; ``advance`` then finishes the game."""
    game = room.game
    assert game is not None
    if reveal is not None:
        reveal.final = True
    game.phase = Phase.FINAL_REVEAL
    game.deadline = deadline = at + FINAL_REVEAL_MS
    events.append(record(FinalRevealStarted(game.round, deadline, at)))


def _eliminate(room: Room, player: Player, at: int, events: list[Event]) -> None:
    player.rank = _lowest_free_rank(room)
    player.eliminated = True
    player.dice_count = 0
    assert room.game is not None
    events.append(record(PlayerEliminated(player.id, room.game.round, player.rank, at)))


def _all_agreed(room: Room) -> bool:
    game = room.game
    assert game is not None
    return all(p.id in game.agreed for p in in_game(room))


def _maybe_end_break(room: Room, roller: Roller, at: int, events: list[Event]) -> None:
    """Unanimous agreement among those still in the game starts the next round early."""
    game = room.game
    assert game is not None
    if game.phase == Phase.BREAK and _all_agreed(room):
        assert game.opener is not None
        _start_round(room, _opener_from(room, game.opener), roller, at, events)


def seat_memory(memory: dict[str, Any], notes: tuple[str, ...], me: str) -> dict[str, Any]:
    """What one bot is handed of the room's bot memory: the public entries and its own notes.

    ``notes`` names the entries keyed by bot id (another bot's notes are not its to read).
    Public entries are the room's own objects, so what the bot learns there is kept.
    """
    out: dict[str, Any] = {}
    for key, value in memory.items():
        if key in notes and isinstance(value, dict):
            out[key] = {me: value[me]} if me in value else {}
        else:
            out[key] = value
    return out


def keep_notes(
    memory: dict[str, Any], seen: dict[str, Any], notes: tuple[str, ...], me: str
) -> None:
    """Write back into the room's ``memory`` what the bot ``me`` wrote into ``seen``."""
    for key in [k for k in memory if k not in seen]:
        del memory[key]
    for key, value in seen.items():
        if key not in notes or not isinstance(value, dict):
            memory[key] = value
            continue
        mine = memory.get(key)
        if not isinstance(mine, dict):
            mine = memory[key] = {}
        if me in value:
            mine[me] = value[me]
        else:
            mine.pop(me, None)


def _run_bots(room: Room, roller: Roller, at: int, events: list[Event]) -> None:
    """Bots act inside the same transition whenever play reaches them."""
    from .views import bot_view

    rules = rule_system(room.settings.rules)
    guard = 0
    first_round = room.game.round if room.game is not None else 0
    while room.game is not None and room.game.phase == Phase.BIDDING:
        player = room.player(room.game.turn_player or "")
        if player is None or not player.is_bot:
            return
        if room.game.round - first_round >= BOT_PLAYOUT_ROUNDS and not _humans_hold_dice(room):
            _decide_by_dice(room, _last_at(events, at), events)
            return
        notes = rules.bot_notes
        memory = seat_memory(room.bot_memory, notes, player.id)
        action = rules.bot_action(
            bot_view(room, player.id), player.level or "strong", memory, roller
        )
        keep_notes(room.bot_memory, memory, notes, player.id)
        # A bot takes a moment after the event before it, like a player would.
        at = _last_at(events, at) + think_time(room, roller)
        try:
            _apply_turn_action(room, player, action, roller, at, events, by="bot")
        except DomainError:
            # a bot must never stall a game: fall back to the timeout action
            fallback = {**rules.timeout_action(room), "turn": room.game.turn}
            _apply_turn_action(room, player, fallback, roller, at, events, by="bot")
        guard += 1
        if guard > MAX_ADVANCE_STEPS:
            raise AssertionError("bots did not finish")


# -- the turn actions -------------------------------------------------------------------------


def _apply_turn_action(
    room: Room,
    player: Player,
    action: Command | dict[str, Any],
    roller: Roller,
    at: int,
    events: list[Event],
    *,
    by: str,
) -> None:
    """Apply the acting player's turn action (the rule system validates and decides it).

    A bot's action comes in its plain form and is parsed into its command here (a malformed
    one is refused like a client's, and the bot falls back to the timeout action).
    """
    game = room.game
    assert game is not None
    command = action if isinstance(action, Command) else command_of(action)
    outcome = rule_system(room.settings.rules).turn_action(room, player, command, roller)
    for move in outcome.events:
        events.append(record(move, round=game.round, by=by, at=at))
    if outcome.bid is not None:
        game.current_bid = outcome.bid
        game.round_bids.append(outcome.bid)
    if outcome.reveal is not None:
        # A bot's Liar! (or last roll) is followed by the reveal as a moment of its own.
        reveal_at = at + think_time(room, roller) if by == "bot" else at
        _resolve(room, outcome.reveal, roller, reveal_at, events)
    elif outcome.next_player is not None:
        same_holder, deadline = outcome.next_player.id == game.turn_player, game.deadline
        _begin_turn(room, outcome.next_player, at)
        if same_holder and deadline is not None:
            # One clock per holder: the stages of one player's turn share its deadline.
            game.deadline = deadline


def _resolve(room: Room, reveal: Reveal, roller: Roller, at: int, events: list[Event]) -> None:
    game = room.game
    assert game is not None
    rules = rule_system(room.settings.rules)
    reveal.at = at
    # Who the challenge put out; they are announced after the challenge that did it.
    out = [p for p in room.players if p.in_game and p.dice_count <= 0]
    reveal.eliminated.extend(p.id for p in out)
    for p in room.players:
        p.hand = []
    counts = list(game.dice_progress[-1]) if game.dice_progress else []
    room.completed.append(CompletedRound(reveal, list(game.round_bids), counts, game.attempt))
    game.last_reveal = reveal
    game.current_bid = None
    game.round_bids = []
    game.turn_player = None
    rules.observe(room.bot_memory, reveal)
    events.append(
        record(
            ChallengeResolved(
                reveal.round, reveal.count, reveal.loser_id or None, reveal.winner_id, at
            )
        )
    )
    for p in out:
        _eliminate(room, p, at, events)
    if len(in_game(room)) <= 1:
        _begin_final_reveal(room, reveal, at, events)
        return
    game.phase = Phase.BREAK
    game.deadline = deadline = at + room.settings.break_ms
    game.opener = _opener_from(room, rules.next_opener(room, reveal)).id
    # Bots and Auto players agree at once; eliminated and resigned players have no vote.
    game.agreed = [p.id for p in in_game(room) if p.is_bot or p.continue_mode == "auto"]
    events.append(record(BreakStarted(game.round, deadline, at)))
    _maybe_end_break(room, roller, at, events)


# -- public transitions -----------------------------------------------------------------------


def start_game(
    room: Room, roller: Roller, now: int, pace: tuple[int, int] = BOT_THINK_MS
) -> list[Event]:
    """Deal starting dice, pick the first opener at random, start round 1 (lobby checks are in ``room``).

    ``pace`` is the bots' think time range in ms (server configuration), kept with the game.
    """
    low, high = pace
    if not 0 <= low <= high:
        raise ValueError(f"bad bot think time range {pace!r}")
    room.status = Status.PLAYING
    room.game = Game(clock=now, pace=(low, high))
    start_count = rule_system(room.settings.rules).starting_count(room.settings)
    for p in room.players:
        p.dice_count = start_count
        p.hand = []
        p.eliminated = p.resigned = False
        p.rank = None
        p.moved = False
    events: list[Event] = [record(GameStarted(now))]
    opener = room.players[roller.below(len(room.players))]
    _start_round(room, opener, roller, now, events)
    _run_bots(room, roller, now, events)
    _settle(room, events)
    return events


def replace_with_bot(
    room: Room, player_id: str, level: str, name: str, roller: Roller, at: int
) -> list[Event]:
    """A bot of ``level`` takes over the seat ``player_id`` (a quick-play seat left in the
    countdown): same dice, same place; it plays at once if the turn is the seat's."""
    player = room.player(player_id)
    if player is None or player.is_bot:
        raise NotAPlayer("that seat is not a human's")
    player.kind = "bot"
    player.user_id = None
    player.level = level
    player.name = name
    player.ready = True
    player.continue_mode = "auto"
    events: list[Event] = [record(PlayerReplaced(player_id, level, at))]
    if room.status == Status.PLAYING and room.game is not None:
        _run_bots(room, roller, max(at, room.game.clock), events)
        _settle(room, events)
    return events


def seat_of_user(room: Room, user_id: str | None) -> Player:
    """The caller's seat, or ``NotAPlayer``."""
    player = room.player_of_user(user_id)
    if player is None:
        raise NotAPlayer("you have no seat in this game")
    return player


def place_bid(
    room: Room, player_id: str, quantity: int, face: int, turn: int, roller: Roller, now: int
) -> list[Event]:
    """The player to act raises the bid."""
    return act(
        room,
        player_id,
        {"type": "bid", "quantity": quantity, "face": face, "turn": turn},
        roller,
        now,
    )


def call_liar(room: Room, player_id: str, turn: int, roller: Roller, now: int) -> list[Event]:
    """The player to act challenges the current bid."""
    return act(room, player_id, {"type": "liar", "turn": turn}, roller, now)


def act(
    room: Room, player_id: str, action: Command | dict[str, Any], roller: Roller, now: int
) -> list[Event]:
    """Apply a player's action: a turn action (with ``turn``), ``agree`` or ``resign``.

    ``action`` is a typed command (what the edge builds from the request body) or the same
    action in its plain form, parsed here by the same bodies (``systems.command_of``). Turn
    actions are every type a registered system declares; the room's rule system decides them.
    """
    game = _game(room)
    player = room.player(player_id)
    if player is None:
        raise NotAPlayer("you have no seat in this game")
    if not isinstance(action, Command):
        said = action.get("type")
        if not isinstance(said, str) or said not in (*TURN_ACTIONS, "agree", "resign"):
            raise InvalidAction(
                "type must be one of: " + ", ".join((*TURN_ACTIONS, "agree", "resign")),
                field="type",
            )
        if said in TURN_ACTIONS and game.phase != Phase.BIDDING:
            raise WrongPhase("nobody is bidding right now")
        turn_said = action.get("turn")
        if said in TURN_ACTIONS and (not isinstance(turn_said, int) or isinstance(turn_said, bool)):
            raise InvalidAction("turn must be the game.turn.number you are answering", field="turn")
        action = command_of(action)
    kind = action.TYPE
    events: list[Event] = []
    now = max(now, game.clock)  # stamps never go back before the table's latest event
    if kind not in ("agree", "resign"):
        if game.phase != Phase.BIDDING:
            raise WrongPhase("nobody is bidding right now")
        turn = getattr(action, "turn", None)
        if turn != game.turn:
            raise StaleTurn(f"turn {turn} has passed; the current turn is {game.turn}")
        if game.deadline is not None and game.deadline <= now:
            # The turn's time is up: its timeout is ``advance``'s to apply (callers advance
            # before acting). Accepting the move would stamp it after the deadline, and a
            # Poker holder's later stages, which keep that deadline, would time out before it.
            raise StaleTurn(f"turn {turn} has passed; its time ran out")
        if not player.in_game:
            raise NotYourTurn("you are out of this game")
        if game.turn_player != player.id:
            raise NotYourTurn("it is not your turn")
        _apply_turn_action(room, player, action, roller, now, events, by="player")
        player.moved = True
    elif kind == "agree":
        if game.phase != Phase.BREAK:
            raise WrongPhase("there is no break to agree to")
        if not player.in_game:
            raise NotYourTurn("you are out of this game")
        if player.id in game.agreed:
            raise StaleTurn("you have already agreed", code="already_agreed")
        game.agreed.append(player.id)
        events.append(record(Agreed(player.id, game.round, "player", now)))
        _maybe_end_break(room, roller, now, events)
    elif kind == "resign":
        _resign(room, player, roller, now, events)
    _run_bots(room, roller, now, events)
    _settle(room, events)
    return events


def _resign(room: Room, player: Player, roller: Roller, now: int, events: list[Event]) -> None:
    game = room.game
    assert game is not None
    if game.phase not in (Phase.BIDDING, Phase.BREAK):
        raise WrongPhase("the game is already decided")
    if not player.in_game:
        raise WrongPhase("you are already out of this game", code="already_out")
    player.rank = _lowest_free_rank(room)
    player.resigned = True
    player.dice_count = 0
    player.hand = []
    if player.id in game.agreed:
        game.agreed.remove(player.id)
    events.append(record(PlayerResigned(player.id, game.round, player.rank, "player", now)))
    if game.phase == Phase.BIDDING:
        # The round in play is abandoned (its hands are never shown): it keeps its own record,
        # told apart from the round dealt again under the same number by its ``attempt``.
        counts = list(game.dice_progress[-1]) if game.dice_progress else []
        room.completed.append(
            CompletedRound(
                None, list(game.round_bids), counts, game.attempt, game.round, now, player.id
            )
        )
    if len(in_game(room)) == 1:
        _finish(room, now, events)
        return
    assert game.opener is not None
    if game.phase == Phase.BIDDING:
        # The aborted round restarts: everyone rerolls, bids are cleared, same opener if possible.
        _start_round(room, _opener_from(room, game.opener), roller, now, events, restart=True)
    else:
        game.opener = _opener_from(room, game.opener).id
        _maybe_end_break(room, roller, now, events)


def set_continue_mode(
    room: Room, player_id: str, mode: str, roller: Roller, now: int
) -> list[Event]:
    """Record a player's Auto/Manual choice; switching to Auto during a break agrees."""
    if mode not in ("auto", "manual"):
        raise InvalidAction("continue_mode must be auto or manual", field="continue_mode")
    player = room.player(player_id)
    if player is None:
        raise NotAPlayer("you have no seat in this room")
    player.continue_mode = mode
    events: list[Event] = []
    game = room.game
    # Switching to Manual never revokes an agreement already given.
    if (
        mode == "auto"
        and game is not None
        and game.phase == Phase.BREAK
        and player.in_game
        and player.id not in game.agreed
    ):
        now = max(now, game.clock)
        game.agreed.append(player.id)
        events.append(record(Agreed(player.id, game.round, "player", now)))
        _maybe_end_break(room, roller, now, events)
        _run_bots(room, roller, now, events)
        _settle(room, events)
    return events


def next_deadline(room: Room) -> int | None:
    """When the room next needs waking (turn, break end, final reveal end), if ever."""
    if room.game is None or room.status != Status.PLAYING:
        return None
    return room.game.deadline


def advance(room: Room, now: int, roller: Roller) -> list[Event]:
    """Apply every deadline that has passed by ``now``, each at its own deadline time."""
    events: list[Event] = []
    steps = 0
    while room.status == Status.PLAYING and room.game is not None:
        game = room.game
        due = game.deadline
        if due is None or due > now:
            break
        if game.phase == Phase.BIDDING:
            player = room.player(game.turn_player or "")
            assert player is not None
            said = rule_system(room.settings.rules).timeout_action(room)
            command = command_of({**said, "turn": game.turn})
            events.append(
                record(
                    TurnTimedOut(
                        player.id, game.turn, game.round, command.announced(), "timeout", due
                    )
                )
            )
            _apply_turn_action(room, player, command, roller, due, events, by="timeout")
        elif game.phase == Phase.BREAK:
            events.append(record(BreakEnded(game.round, due)))
            assert game.opener is not None
            _start_round(room, _opener_from(room, game.opener), roller, due, events)
        elif game.phase == Phase.FINAL_REVEAL:
            _finish(room, due, events)
        _run_bots(room, roller, due, events)
        steps += 1
        if steps > MAX_ADVANCE_STEPS:
            raise AssertionError("advance did not converge")
    _settle(room, events)
    return events
