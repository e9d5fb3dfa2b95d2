"""GET /rooms/{id}/history (issue 18): a finished game's rounds, exactly as the players saw them.

A human who lets every turn time out plays with two bots until the game ends, watching the room
over a (fake) WebSocket like a browser. Everything the player was shown (bids as they were
announced, the outcome of each challenge, every reveal a view carried, the player's own dice)
must be what the history says, round by round, in every rule system; and during play the
history shows nothing that is not already public.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chalicelib.engine.systems import SYSTEMS
from tests.api.conftest import Env

SETTINGS = {
    "classic": {"rules": "classic", "starting_dice": 2, "turn_seconds": 15},
    "wild-stars": {"rules": "wild-stars", "starting_dice": 2, "turn_seconds": 15},
    "poker": {"rules": "poker", "lives": 2, "turn_seconds": 15},
}
BID_FIELDS = ("player_id", "quantity", "face", "hand", "category")


class Watcher:
    """What one player saw: every push to their connection, and every view they fetched."""

    def __init__(self, env: Env, rid: str, token: str, user_id: str) -> None:
        self.env, self.rid, self.token = env, rid, token
        env.store.put_connection("conn-1", user_id, env.clock.now_ms())
        assert env.store.subscribe("conn-1", rid)
        self.views: list[dict[str, Any]] = []

    def pushes(self) -> list[dict[str, Any]]:
        return [m for m in self.env.notifier.messages_for("conn-1") if m.get("type") == "room"]

    def look(self) -> dict[str, Any]:
        view = self.env.ok("GET", f"/rooms/{self.rid}", None, self.token)
        self.views.append(view)
        return view

    def everything_seen(self) -> list[dict[str, Any]]:
        return [p["room"] for p in self.pushes()] + self.views

    def events(self) -> list[dict[str, Any]]:
        return [e for p in self.pushes() for e in p.get("events", [])]


def _start(env: Env, rules: str) -> tuple[str, str, Watcher]:
    token, user = env.register(f"hist-{rules}")
    # a system not listed plays with two starting dice (the registry may hold more systems)
    settings = SETTINGS.get(rules, {"rules": rules, "starting_dice": 2, "turn_seconds": 15})
    rid = env.ok("POST", "/rooms", {"settings": settings}, token, 201)["id"]
    watcher = Watcher(env, rid, token, user["id"])
    for _ in range(2):
        env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, token, 201)
    env.ok("POST", f"/rooms/{rid}/start", None, token)
    return rid, token, watcher


def _play_out(env: Env, rid: str, watcher: Watcher, during: Any = None) -> dict[str, Any]:
    """Let every deadline pass (the human times out) until the game has finished."""
    for _ in range(2000):
        view = watcher.look()
        if view["status"] == "finished":
            return view
        if during is not None:
            during(view)
        env.clock.advance(20_000)
        env.ok("POST", f"/rooms/{rid}/tick", None)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("rules", list(SYSTEMS))
def test_history_of_a_whole_game_is_what_the_players_saw(api_env: Env, rules: str) -> None:
    env = api_env
    rid, _token, watcher = _start(env, rules)
    final = _play_out(env, rid, watcher)
    history = env.ok("GET", f"/rooms/{rid}/history")
    assert (history["format"], history["version"], history["complete"]) == (
        "liars-lies/hand-history",
        1,
        True,
    )
    assert history["rules"] == rules and history["results"] == final["results"]
    rounds = history["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1)) and len(rounds) >= 2
    by_round = {r["round"]: r for r in rounds}

    # Bids, in the order they were announced, round by round.
    announced: dict[int, list[dict[str, Any]]] = {}
    outcomes: dict[int, dict[str, Any]] = {}
    for e in watcher.events():
        if e["type"] == "bid_placed":
            announced.setdefault(e["round"], []).append({k: e[k] for k in BID_FIELDS if k in e})
        elif e["type"] == "challenge_resolved":
            outcomes[e["round"]] = e
    assert sorted(announced) == sorted(by_round) == sorted(outcomes)
    for n, record in by_round.items():
        assert record["bids"] == announced[n], n
        reveal = record["reveal"]
        assert (reveal["count"], reveal["loser_id"], reveal["winner_id"]) == (
            outcomes[n]["count"],
            outcomes[n]["loser_id"],
            outcomes[n]["winner_id"],
        )
        assert reveal["bid"] == record["bids"][-1]  # the call was on the last bid

    # Every reveal a view showed is the recorded one, field for field.
    shown = 0
    for seen in watcher.everything_seen():
        last = (seen.get("game") or {}).get("last_reveal")
        if last is not None:
            assert by_round[last["round"]]["reveal"] == last
            shown += 1
    assert shown > 0

    # The player's own dice, as last shown during each round, are the recorded hand.
    me = final["me"]["player_id"]
    if rules != "poker":  # a poker cup is passed on: no hand of one's own
        hands: dict[int, list[Any]] = {}
        for seen in watcher.everything_seen():
            game = seen.get("game") or {}
            if game.get("phase") == "bidding" and seen["me"]["dice"]:
                hands[game["round"]] = seen["me"]["dice"]
        assert hands
        for n, dice in hands.items():
            row = next(r for r in by_round[n]["reveal"]["rows"] if r["player_id"] == me)
            assert row["dice"] == dice, n

    # Dice counts at each round's start agree with the published dice progress.
    progress = {p["round"]: p["counts"] for p in final["results"]["dice_progress"][:-1]}
    for n, record in by_round.items():
        assert record["dice_counts"] == progress[n]


def test_history_during_play_shows_only_the_latest_reveal(api_env: Env) -> None:
    env = api_env
    rid, token, watcher = _start(env, "classic")
    checked = {"before_reveal": 0, "after_reveal": 0}

    def during(view: dict[str, Any]) -> None:
        for who in (None, token):
            history = env.ok("GET", f"/rooms/{rid}/history", None, who)
            assert history["complete"] is False and history["rounds"] == []
            assert history["results"] is None
            assert all(p["rank"] is None for p in history["players"])
            assert history["last_reveal"] == view["game"]["last_reveal"]
            # No current hand and no current bid: without the (public) latest reveal, the
            # document holds no dice at all.
            rest = {k: v for k, v in history.items() if k != "last_reveal"}
            text = json.dumps(rest)
            assert '"dice"' not in text and "current_bid" not in text and '"table"' not in text
            assert "round_bids" not in text and '"bids"' not in text
            checked["after_reveal" if history["last_reveal"] else "before_reveal"] += 1

    _play_out(env, rid, watcher, during)
    assert checked["before_reveal"] > 0 and checked["after_reveal"] > 0


def test_history_of_an_unknown_room_is_404(api_env: Env) -> None:
    resp = api_env.call("GET", "/rooms/nope/history")
    assert resp.status_code == 404 and resp.json["error"]["code"] == "unknown_room"


def test_history_of_a_waiting_room_lists_nothing(api_env: Env) -> None:
    token, _ = api_env.register("waiter")
    rid = api_env.ok("POST", "/rooms", {"settings": {}}, token, 201)["id"]
    history = api_env.ok("GET", f"/rooms/{rid}/history")
    assert history["status"] == "waiting" and history["rounds"] == []
    assert history["last_reveal"] is None and history["complete"] is False


def _bid_on_turn(env: Env, rid: str, tokens: dict[str, str]) -> dict[str, Any]:
    """The human whose turn it is raises the bid (face 3); the view after the bid."""
    view = env.ok("GET", f"/rooms/{rid}", None, next(iter(tokens.values())))
    turn = view["game"]["turn"]
    bid = view["game"]["current_bid"]
    quantity = 1 if bid is None else bid["quantity"] + 1
    action = {"type": "bid", "quantity": quantity, "face": 3, "turn": turn["number"]}
    return env.ok("POST", f"/rooms/{rid}/actions", action, tokens[turn["player_id"]])


def _humans(env: Env, bots: int) -> tuple[str, dict[str, str], dict[str, str], Watcher]:
    """A started classic room of ann (host), bob and ``bots`` bots: (room id, tokens by
    player id, player id by name, ann's watcher)."""
    ann, ann_user = env.register("ann-resigns")
    bob, _ = env.register("bob-resigns")
    settings = {"rules": "classic", "starting_dice": 2, "turn_seconds": 15}
    rid = env.ok("POST", "/rooms", {"settings": settings}, ann, 201)["id"]
    watcher = Watcher(env, rid, ann, ann_user["id"])
    env.ok("POST", f"/rooms/{rid}/join", {}, bob)
    env.ok("PUT", f"/rooms/{rid}/ready", {"ready": True}, bob)
    for _ in range(bots):
        env.ok("POST", f"/rooms/{rid}/bots", {"level": "easy"}, ann, 201)
    env.ok("POST", f"/rooms/{rid}/start", None, ann)
    ids = {
        "ann": env.ok("GET", f"/rooms/{rid}", None, ann)["me"]["player_id"],
        "bob": env.ok("GET", f"/rooms/{rid}", None, bob)["me"]["player_id"],
    }
    return rid, {ids["ann"]: ann, ids["bob"]: bob}, ids, watcher


def _bids_before_resigning(watcher: Watcher, n: int) -> list[dict[str, Any]]:
    """The bids of round ``n`` announced before the resignation, as they were announced."""
    bids: list[dict[str, Any]] = []
    for e in watcher.events():
        if e["type"] == "player_resigned":
            return bids
        if e["type"] == "bid_placed" and e["round"] == n:
            bids.append({k: e[k] for k in BID_FIELDS if k in e})
    raise AssertionError("nobody resigned")


def _abandoned_checks(
    history: dict[str, Any], announced: list[dict[str, Any]], bob: str, n: int
) -> dict[str, Any]:
    abandoned = [r for r in history["rounds"] if r["reveal"] is None]
    assert len(abandoned) == 1
    record = abandoned[0]
    assert (record["round"], record["attempt"], record["resigned_id"]) == (n, 0, bob)
    assert record["bids"] == announced and announced
    # Its hands were never shown to anyone: the record holds no die.
    assert '"dice"' not in json.dumps(record) and "rows" not in json.dumps(record)
    assert record["dice_counts"][bob] > 0
    return record


def test_history_lists_the_round_a_resignation_abandoned(both_stores_env: Env) -> None:
    # Issue 28, defect 9: a round a resignation abandons is dealt again under the same number;
    # the abandoned deal keeps a record of its own beside the completed rounds.
    env = both_stores_env
    rid, tokens, ids, watcher = _humans(env, bots=1)
    for _ in range(20):  # until a round in play has a bid on the table
        view = env.ok("GET", f"/rooms/{rid}", None, tokens[ids["ann"]])
        game = view["game"]
        if game["phase"] == "bidding" and game["current_bid"] is not None:
            break
        if game["phase"] == "bidding" and game["turn"]["player_id"] in tokens:
            _bid_on_turn(env, rid, tokens)
        else:
            env.clock.advance(20_000)
            env.ok("POST", f"/rooms/{rid}/tick", None)
    n = view["game"]["round"]
    assert view["game"]["phase"] == "bidding" and view["game"]["current_bid"] is not None
    env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, tokens[ids["bob"]])
    during = env.ok("GET", f"/rooms/{rid}/history")
    assert during["complete"] is False and during["rounds"] == []  # nothing listed in play
    final = _play_out(env, rid, watcher)
    history = env.ok("GET", f"/rooms/{rid}/history")
    assert history["complete"] is True and history["results"] == final["results"]
    _abandoned_checks(history, _bids_before_resigning(watcher, n), ids["bob"], n)
    keys = [(r["round"], r["attempt"]) for r in history["rounds"]]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    completed = [r for r in history["rounds"] if r["reveal"] is not None]
    # Every round was completed once, the abandoned number too (its second deal, attempt 1).
    assert [r["round"] for r in completed] == list(range(1, len(completed) + 1))
    assert next(r for r in completed if r["round"] == n)["attempt"] == 1
    assert all(r["attempt"] == 0 for r in completed if r["round"] != n)


def test_history_lists_the_round_abandoned_by_the_resignation_that_ends_the_game(
    both_stores_env: Env,
) -> None:
    env = both_stores_env
    rid, tokens, ids, watcher = _humans(env, bots=0)
    _bid_on_turn(env, rid, tokens)
    view = _bid_on_turn(env, rid, tokens)
    n = view["game"]["round"]
    view = env.ok("POST", f"/rooms/{rid}/actions", {"type": "resign"}, tokens[ids["bob"]])
    assert view["status"] == "finished"
    history = env.ok("GET", f"/rooms/{rid}/history")
    announced = _bids_before_resigning(watcher, n)
    assert len(announced) == 2
    record = _abandoned_checks(history, announced, ids["bob"], n)
    assert history["rounds"] == [record]
