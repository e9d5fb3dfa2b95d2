"""A Poker claim is its own type (a full hand), and rooms stored before it had one read back.

The stored room below was written by the code before the claim had a type of its own
(commit e88e48b): a hand in progress with two claims, and the previous hand's reveal.
"""

from __future__ import annotations

import json
from typing import Any

from chalicelib.engine.model import Bid, Room
from chalicelib.engine.systems.poker.hands import ACE, Claim, bid_of, bid_rank, hand_rank
from chalicelib.engine.views import room_view

STORED_BEFORE: dict[str, Any] = json.loads(
    r"""{"id": "r1", "host": "p1", "guest": 0, "created": 0, "settings": {"starting_dice": 5, "wildcard_chance": 10, "penalty": "discard", "turn_seconds": 30, "break_seconds": 60, "joining": "open", "passcode": null, "rules": "poker", "lives": 2, "dogs_life": false}, "status": "playing", "players": [{"id": "p1", "name": "Ann", "kind": "human", "uid": "u1", "rdy": 1, "cm": "manual", "n": 1, "mv": 1}, {"id": "p2", "name": "Bob", "kind": "human", "uid": "u2", "rdy": 1, "cm": "manual", "n": 2, "mv": 1}], "npn": 3, "pending": [], "denied": [], "invited": [], "game": {"round": 2, "phase": "bidding", "turn": 13, "tp": "p2", "dl": 30000, "op": "p2", "bid": {"player_id": "p1", "quantity": 2, "face": 16525}, "rb": [["p2", 1, 16724], ["p1", 2, 16525]], "ag": [], "rev": {"r": 1, "bid": {"player_id": "p2", "quantity": 4, "face": 2825}, "ch": "p1", "c": 1, "lo": "p1", "wi": "p2", "pen": "life", "el": [], "rows": [{"p": "p1", "nm": "Ann", "d": "", "b": [[2, 11038]]}, {"p": "p2", "nm": "Bob", "d": "", "b": [[2, 11037], [4, 2825]]}], "fin": 0, "at": 0, "x": {"cup": ["9", "9", "Q", "9", "Q"], "exposed": [], "hand": {"hand": ["9", "9", "9", "Q", "Q"], "category": "full_house"}, "rerolls": [{"player_id": "p1", "count": 1}, {"player_id": "p2", "count": 1}], "lost": {"p1": 1}, "next_id": "p2"}}, "dp": [[2, 2], [1, 2]], "dpr": [1, 2], "fa": null, "x": {"st": "respond", "rr": [["p1", 3]], "cup": "66511", "ex": ""}}, "results": null, "rated": 1, "recreated_as": null, "recreated_from": null, "bm": {"pk": {"p2": [1, -2881, -1495, -265, 1, 0], "p1": [0, 0, 0, 0, 2, 1]}}}"""
)


def test_a_room_stored_before_claims_had_a_type_reads_back_as_claims_of_full_hands() -> None:
    room = Room.from_dict(json.loads(json.dumps(STORED_BEFORE)))
    assert room.game is not None and room.game.last_reveal is not None
    current = room.game.current_bid
    assert isinstance(current, Claim) and not isinstance(current, Bid)
    assert current.player_id == "p1" and current.hand == (ACE, ACE, 1, 1, 5)
    assert all(isinstance(c, Claim) for c in room.game.round_bids)
    assert isinstance(room.game.last_reveal.bid, Claim)
    # it writes back byte for byte as it was stored
    assert room.to_dict() == STORED_BEFORE


def test_the_view_of_a_stored_room_shows_the_claims_as_the_players_saw_them() -> None:
    view = room_view(Room.from_dict(json.loads(json.dumps(STORED_BEFORE))), user_id="u2")
    game = view["game"]
    assert game["current_bid"] == {
        "player_id": "p1",
        "hand": ["A", "A", "9", "9", "K"],
        "category": "two_pairs",
    }
    assert game["last_reveal"]["bid"] == {
        "player_id": "p2",
        "hand": ["9", "9", "9", "Q", "Q"],
        "category": "full_house",
    }
    assert [r["bids"] for r in game["last_reveal"]["rows"]] == [
        [{"hand": ["Q", "Q", "9", "9", "A"], "category": "two_pairs"}],
        [
            {"hand": ["Q", "Q", "9", "9", "K"], "category": "two_pairs"},
            {"hand": ["9", "9", "9", "Q", "Q"], "category": "full_house"},
        ],
    ]


def test_a_claim_is_a_full_hand_in_canonical_order_ranked_like_the_hand() -> None:
    claim = bid_of("p1", (1, ACE, 1, 3, ACE))
    assert claim == Claim("p1", (ACE, ACE, 1, 1, 3))
    assert bid_rank(claim) == hand_rank([1, ACE, 1, 3, ACE]) == claim.rank
    assert Claim.from_dict(claim.to_dict()) == claim
    assert Claim.from_row("p1", claim.row()) == claim
