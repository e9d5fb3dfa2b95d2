"""Wild Stars over HTTP: star bids, show and reroll, the public table, reveal extras, limits."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from chalicelib import schemas
from chalicelib.engine.model import Bid
from chalicelib.engine.systems.wild_stars.track import STAR_FACE, is_raise
from tests.api.conftest import Env
from tests.api.helpers import assert_action_bodies_never_5xx, player_to_act, setup_game

WILD = {"rules": "wild-stars"}


def _face_in(face: int | str) -> int:
    return STAR_FACE if face == "*" else int(face)


def _raises(bid: dict[str, Any], total: int) -> list[tuple[int, int | str]]:
    """Every legal raise over the current bid, as (quantity, wire face)."""
    current = Bid(bid["player_id"], bid["quantity"], _face_in(bid["face"]))
    return [
        (q, f)
        for q in range(1, total + 1)
        for f in ("*", 2, 3, 4, 5, 6)
        if is_raise(q, _face_in(f), current)
    ]


def test_wild_stars_game_with_bots_plays_to_the_end(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=1, bots=2, settings={**WILD, "starting_dice": 3})
    token = tokens[0]
    rng = random.Random(5)
    star_bids = shows = 0
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
        assert game["table"] is not None and set(game["table"]) == {"shown"}
        me = next(p for p in view["players"] if p["id"] == view["me"]["player_id"])
        cup = view["me"]["dice"] or []
        assert len(cup) + len(game["table"]["shown"].get(me["id"], [])) == me["dice_count"]
        turn = game["turn"]
        assert turn["player_id"] == me["id"]  # bots act at once: it is the human's turn
        bid, total = game["current_bid"], game["total_dice"]
        action: dict[str, Any] = {"type": "bid", "turn": turn["number"]}
        if bid is None:
            # open with a star bid, setting the first die out when the cup has more than one
            action.update(quantity=1, face="*")
        elif rng.random() < 0.5 or not _raises(bid, total):
            action = {"type": "liar", "turn": turn["number"]}
        else:
            quantity, face = _raises(bid, total)[0]
            action.update(quantity=quantity, face=face)
        if action["type"] == "bid":
            if len(cup) > 1:
                action["show"] = [len(cup) - 1] if rng.random() < 0.5 else [0]
                shows += 1
            star_bids += action["face"] == "*"
        after = env.ok("POST", f"/rooms/{rid}/actions", action, token)
        schemas.RoomView.model_validate(after)
    else:
        raise AssertionError("the Wild Stars game did not end")

    assert view["status"] == "finished"
    assert star_bids > 0 and shows > 0
    assert sorted(r["rank"] for r in view["results"]["ranking"]) == [1, 2, 3]
    assert reveals
    for reveal in reveals.values():
        assert reveal["penalty"] == "discard"
        assert isinstance(reveal["perfect"], bool) and isinstance(reveal["die_hard"], list)
        assert set(reveal["lost"]) <= {p["id"] for p in view["players"]}
        for row in reveal["rows"]:
            assert len(reveal["shown"][row["player_id"]]) == len(row["dice"])
            for b in row["bids"]:
                assert b["face"] == "*" or 2 <= b["face"] <= 6


def test_shown_dice_are_public_and_the_cup_stays_private(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=3, bots=0, settings=WILD, prefix="show")
    token, view = player_to_act(env, rid, tokens)
    mover = view["me"]["player_id"]
    cup = view["me"]["dice"]
    assert len(cup) == 5 and all(d == "*" or 2 <= d <= 6 for d in cup)
    assert view["game"]["table"] == {"shown": {}}
    env.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {
            "type": "bid",
            "quantity": 2,
            "face": 4,
            "turn": view["game"]["turn"]["number"],
            "show": [0, 3],
        },
        token,
    )
    shown = [cup[0], cup[3]]
    spectator, _ = env.register("watcher")
    for t in [*tokens, spectator, None]:
        seen = env.ok("GET", f"/rooms/{rid}", None, t)
        assert seen["game"]["table"]["shown"] == {mover: shown}
        assert seen["game"]["current_bid"] == {"player_id": mover, "quantity": 2, "face": 4}
        assert next(p for p in seen["players"] if p["id"] == mover)["dice_count"] == 5
        assert all("dice" not in p and "hand" not in p for p in seen["players"])
        if t == token:
            assert len(seen["me"]["dice"]) == 3  # the rest of the cup was rerolled
        elif t in tokens:
            assert len(seen["me"]["dice"]) == 5  # their own cup only
        else:
            assert seen["me"]["dice"] is None
    # the next player raises with a star bid; a reroll with nothing shown is not a move
    token2, view2 = player_to_act(env, rid, tokens)
    assert token2 != token
    star = {"type": "bid", "quantity": 2, "face": "*", "turn": view2["game"]["turn"]["number"]}
    refused = env.call("POST", f"/rooms/{rid}/actions", {**star, "reroll": True}, token2)
    assert refused.status_code == 400 and refused.json["error"]["field"] == "show"
    assert env.ok("GET", f"/rooms/{rid}", None, token2)["me"]["dice"] == view2["me"]["dice"]
    out = env.ok("POST", f"/rooms/{rid}/actions", star, token2)
    assert out["game"]["current_bid"]["face"] == "*"
    assert out["me"]["dice"] == view2["me"]["dice"]
    assert {k: v for k, v in out["game"]["table"]["shown"].items() if v} == {mover: shown}
    # the last shown dice of a round come back in the reveal, marked as shown
    token3, view3 = player_to_act(env, rid, tokens)
    done = env.ok(
        "POST",
        f"/rooms/{rid}/actions",
        {"type": "liar", "turn": view3["game"]["turn"]["number"]},
        token3,
    )
    reveal = done["game"]["last_reveal"]
    schemas.RevealOut.model_validate(reveal)
    row = next(r for r in reveal["rows"] if r["player_id"] == mover)
    assert row["dice"][-2:] == shown
    assert reveal["shown"][mover] == [False, False, False, True, True]
    assert reveal["bid"]["face"] == "*"
    assert sum(reveal["lost"].values()) >= 1 or reveal["perfect"]


def test_show_and_reroll_mistakes_are_400(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=0, settings=WILD, prefix="bad")
    token, view = player_to_act(env, rid, tokens)
    turn = view["game"]["turn"]["number"]
    base = {"type": "bid", "quantity": 1, "face": 3, "turn": turn}
    for extra in (
        {"show": [0, 1, 2, 3, 4]},  # the whole cup: one die must stay in
        {"show": [0, 0]},
        {"show": [7]},
        {"show": [10]},
        {"show": [-1]},
        {"show": list(range(11))},
        {"show": [0], "reroll": False},
        {"show": ["0"]},
        {"reroll": 1},
        {"face": 1},  # no 1s in Wild Stars: the star takes its place
        {"face": "**"},
    ):
        resp = env.call("POST", f"/rooms/{rid}/actions", {**base, **extra}, token)
        assert resp.status_code == 400, (extra, resp.json)
    assert env.ok("GET", f"/rooms/{rid}", None, token)["game"]["current_bid"] is None


def test_classic_refuses_star_faces(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=0, prefix="classic")
    token, view = player_to_act(env, rid, tokens)
    assert view["game"]["table"] is None
    body = {"type": "bid", "quantity": 1, "face": "*", "turn": view["game"]["turn"]["number"]}
    resp = env.call("POST", f"/rooms/{rid}/actions", body, token)
    assert resp.status_code == 400 and resp.json["error"]["field"] == "face"
    assert env.ok("GET", f"/rooms/{rid}", None, token)["game"]["current_bid"] is None


def test_settings_accept_wild_stars_and_seven_seats_cannot_start(api_env: Env) -> None:
    env = api_env
    host, _ = env.register("sevenhost")
    rid = env.ok("POST", "/rooms", {"settings": WILD}, host, 201)["id"]
    assert env.ok("GET", f"/rooms/{rid}", None, host)["settings"]["rules"] == "wild-stars"
    bad = env.call("PATCH", f"/rooms/{rid}/settings", {"rules": "poker-ish"}, host)
    assert bad.status_code == 400
    for _ in range(6):
        env.ok("POST", f"/rooms/{rid}/bots", {}, host, 201)
    resp = env.call("POST", f"/rooms/{rid}/start", None, host)
    assert resp.status_code == 409 and resp.json["error"]["code"] == "too_many_players"
    waiting = env.ok("GET", f"/rooms/{rid}", None, host)
    assert waiting["status"] == "waiting" and len(waiting["players"]) == 7
    env.ok("DELETE", f"/rooms/{rid}/bots/{waiting['players'][-1]['id']}", None, host)
    assert env.ok("POST", f"/rooms/{rid}/start", None, host)["status"] == "playing"
    # switching back to classic is possible in a waiting room
    other = env.ok("POST", "/rooms", {"settings": WILD}, host, 201)["id"]
    assert (
        env.ok("PATCH", f"/rooms/{other}/settings", {"rules": "classic"}, host)["settings"]["rules"]
        == "classic"
    )


BID_FIELDS = st.fixed_dictionaries(
    {"type": st.just("bid")},
    optional={
        "quantity": st.integers(-3, 40) | st.none() | st.text(max_size=3),
        "face": st.sampled_from([0, 1, 2, 6, 7, "*", "x", None, True, 2.0]),
        "turn": st.integers(-1, 5),
        "show": st.lists(st.integers(-2, 12) | st.booleans() | st.text(max_size=2), max_size=12)
        | st.none()
        | st.integers(),
        "reroll": st.booleans() | st.none() | st.integers(0, 2),
    },
)


def test_random_wild_stars_bids_never_5xx(api_env: Env) -> None:
    env = api_env
    rid, tokens = setup_game(env, humans=2, bots=0, settings=WILD, prefix="fuzz")
    assert_action_bodies_never_5xx(env, rid, tokens, BID_FIELDS)
