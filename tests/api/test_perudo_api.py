"""Perudo over HTTP: a whole game with bots, every refusal as a 4xx with a stable code, the wire.

Refusals: opening on aces, halving below half, leaving aces below twice plus one, changing the
face in palifico with more than one die, calza heads-up (and calza or Dudo with no bid). Each
changes nothing.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from chalicelib import schemas
from chalicelib.engine.systems.perudo import moves
from tests.api.conftest import Env
from tests.api.helpers import assert_action_bodies_never_5xx, player_to_act, setup_game

PERUDO = {"rules": "perudo"}


def act(env: Env, rid: str, token: str, view: dict[str, Any], **action: Any) -> Any:
    """Send a turn action for the turn in ``view``; the raw response."""
    body = {**action, "turn": view["game"]["turn"]["number"]}
    return env.call("POST", f"/rooms/{rid}/actions", body, token)


def refused(
    env: Env, rid: str, token: str, view: dict[str, Any], status: int, code: str, **action: Any
) -> None:
    """The action is refused with ``status`` and ``code`` and the room does not change."""
    before = env.ok("GET", f"/rooms/{rid}", None, token)
    resp = act(env, rid, token, view, **action)
    assert resp.status_code == status, (action, resp.status_code, resp.json)
    assert resp.json["error"]["code"] == code, resp.json
    after = env.ok("GET", f"/rooms/{rid}", None, token)
    assert after["version"] == before["version"] and after["game"] == before["game"]


def test_opening_on_aces_is_refused(api_env: Env) -> None:
    rid, tokens = setup_game(api_env, humans=2, bots=0, settings=PERUDO, prefix="open")
    token, view = player_to_act(api_env, rid, tokens)
    assert view["game"]["table"] == {"palifico": False}
    refused(api_env, rid, token, view, 400, "opening_on_aces", type="bid", quantity=2, face=1)
    assert act(api_env, rid, token, view, type="bid", quantity=2, face=2).status_code == 200


def test_halving_below_half_and_leaving_aces_below_twice_plus_one_are_refused(api_env: Env) -> None:
    rid, tokens = setup_game(api_env, humans=2, bots=0, settings=PERUDO, prefix="aces")
    token, view = player_to_act(api_env, rid, tokens)
    assert act(api_env, rid, token, view, type="bid", quantity=5, face=4).status_code == 200
    token, view = player_to_act(api_env, rid, tokens)
    refused(api_env, rid, token, view, 400, "aces_below_half", type="bid", quantity=2, face=1)
    out = act(api_env, rid, token, view, type="bid", quantity=3, face=1)
    assert out.status_code == 200
    assert out.json["game"]["current_bid"]["face"] == 1
    token, view = player_to_act(api_env, rid, tokens)
    refused(api_env, rid, token, view, 400, "leaving_aces_too_low", type="bid", quantity=6, face=6)
    assert act(api_env, rid, token, view, type="bid", quantity=7, face=2).status_code == 200


def test_calza_heads_up_and_without_a_bid_is_refused(api_env: Env) -> None:
    rid, tokens = setup_game(api_env, humans=2, bots=0, settings=PERUDO, prefix="heads")
    token, view = player_to_act(api_env, rid, tokens)
    refused(api_env, rid, token, view, 409, "no_bid", type="calza")
    assert act(api_env, rid, token, view, type="bid", quantity=2, face=3).status_code == 200
    token, view = player_to_act(api_env, rid, tokens)
    refused(api_env, rid, token, view, 409, "calza_heads_up", type="calza")


def test_calza_with_three_players_resolves_with_kind_calza(api_env: Env) -> None:
    rid, tokens = setup_game(api_env, humans=3, bots=0, settings=PERUDO, prefix="calza")
    token, view = player_to_act(api_env, rid, tokens)
    assert act(api_env, rid, token, view, type="bid", quantity=5, face=3).status_code == 200
    token, view = player_to_act(api_env, rid, tokens)
    caller = view["me"]["player_id"]
    out = act(api_env, rid, token, view, type="calza")
    assert out.status_code == 200, out.json
    reveal = out.json["game"]["last_reveal"]
    schemas.RevealOut.model_validate(reveal)
    assert reveal["kind"] == "calza" and reveal["palifico"] is False
    assert reveal["challenger_id"] == caller
    exact = reveal["count"] == 5
    assert (reveal["loser_id"] is None) == exact
    assert reveal["gained_id"] is None  # everyone still has the starting dice
    counted = sum(sum(r["counted"]) for r in reveal["rows"])
    assert counted == reveal["count"]
    for row in reveal["rows"]:
        assert row["counted"] == [d in (3, 1) for d in row["dice"]]


def drop_to_one_die(env: Env, rid: str, tokens: list[str]) -> str:
    """Make the player to act lose a Dudo with an impossible bid; their id."""
    token, view = player_to_act(env, rid, tokens)
    bidder = view["me"]["player_id"]
    total = view["game"]["total_dice"]
    assert act(env, rid, token, view, type="bid", quantity=total, face=6).status_code == 200
    token, view = player_to_act(env, rid, tokens)
    out = act(env, rid, token, view, type="liar")
    assert out.status_code == 200
    assert out.json["game"]["last_reveal"]["loser_id"] == bidder, (
        "the seeded dice made the bid true"
    )
    return bidder


def test_palifico_round_fixes_the_face_for_a_player_with_more_dice(api_env: Env) -> None:
    rid, tokens = setup_game(
        api_env, humans=3, bots=0, settings={**PERUDO, "starting_dice": 2}, prefix="pali"
    )
    loser = drop_to_one_die(api_env, rid, tokens)
    for t in tokens:  # Auto players: the next round starts at once
        view = api_env.ok("GET", f"/rooms/{rid}", None, t)
    assert view["game"]["phase"] == "bidding"
    assert view["game"]["table"] == {"palifico": True}
    assert view["game"]["turn"]["player_id"] == loser
    token, view = player_to_act(api_env, rid, tokens)
    assert act(api_env, rid, token, view, type="bid", quantity=1, face=1).status_code == 200
    token, view = player_to_act(api_env, rid, tokens)
    refused(api_env, rid, token, view, 400, "palifico_face_fixed", type="bid", quantity=2, face=5)
    assert act(api_env, rid, token, view, type="bid", quantity=2, face=1).status_code == 200
    token, view = player_to_act(api_env, rid, tokens)
    out = act(api_env, rid, token, view, type="liar")
    reveal = out.json["game"]["last_reveal"]
    assert reveal["palifico"] is True and reveal["kind"] == "dudo" and reveal["gained_id"] is None
    for row in reveal["rows"]:
        assert row["counted"] == [d == 1 for d in row["dice"]]


def test_perudo_game_with_bots_plays_to_the_end(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=1, bots=3, settings={**PERUDO, "starting_dice": 2})
    token = tokens[0]
    rng = random.Random(3)
    reveals: dict[int, dict[str, Any]] = {}
    for _ in range(500):
        view = env.ok("GET", f"/rooms/{rid}", None, token)
        schemas.RoomView.model_validate(view)
        game = view["game"]
        if game["last_reveal"] is not None:
            reveals[game["last_reveal"]["round"]] = game["last_reveal"]
        if view["status"] == "finished":
            break
        if game["phase"] in ("final_reveal", "break"):
            env.clock.advance(3001 if game["phase"] == "final_reveal" else 120_000)
            env.ok("POST", f"/rooms/{rid}/tick", None)
            continue
        assert set(game["table"]) == {"palifico"}
        assert all(1 <= d <= 6 for d in view["me"]["dice"])
        bid, total = game["current_bid"], game["total_dice"]
        pal = game["table"]["palifico"]
        me = next(p for p in view["players"] if p["id"] == view["me"]["player_id"])
        options = moves.legal_bids(
            None if bid is None else (bid["quantity"], bid["face"]),
            total,
            palifico=pal,
            single_die=me["dice_count"] == 1,
        )
        if bid is not None and (rng.random() < 0.5 or not options):
            action: dict[str, Any] = {"type": "liar"}
        else:
            q, f = options[0]
            action = {"type": "bid", "quantity": q, "face": f}
        assert act(env, rid, token, view, **action).status_code == 200
    else:
        raise AssertionError("the Perudo game did not end")
    assert view["status"] == "finished"
    assert sorted(r["rank"] for r in view["results"]["ranking"]) == [1, 2, 3, 4]
    assert reveals
    for reveal in reveals.values():
        schemas.RevealOut.model_validate(reveal)
        assert reveal["kind"] in ("dudo", "calza") and isinstance(reveal["palifico"], bool)
        assert "gained_id" in reveal


def test_settings_accept_perudo_and_a_full_table_of_ten_starts(api_env: Env) -> None:
    env = api_env
    host, _ = env.register("elevenhost")
    rid = env.ok("POST", "/rooms", {"settings": PERUDO}, host, 201)["id"]
    assert env.ok("GET", f"/rooms/{rid}", None, host)["settings"]["rules"] == "perudo"
    for _ in range(9):
        env.ok("POST", f"/rooms/{rid}/bots", {}, host, 201)
    assert env.ok("POST", f"/rooms/{rid}/start", None, host)["status"] == "playing"


ACTION_FIELDS = st.fixed_dictionaries(
    {"type": st.sampled_from(["bid", "liar", "calza"])},
    optional={
        "quantity": st.integers(-3, 40) | st.none() | st.text(max_size=3),
        "face": st.sampled_from([0, 1, 2, 6, 7, "*", "x", None, True, 2.0]),
        "turn": st.integers(-1, 5),
        "show": st.lists(st.integers(0, 3), max_size=2) | st.none(),
    },
)


def test_random_perudo_actions_never_5xx(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=3, bots=0, settings=PERUDO, prefix="fuzz")
    assert_action_bodies_never_5xx(env, rid, tokens, ACTION_FIELDS)
