"""Perudo under the *give* penalty: the player who lost the die opens, not the one who gained it.

After Dudo under *give* one player loses a die and the winner gains it, so SPEC-VARIANTS'
"whoever lost or gained a die" names two players; docs/DECISIONS.md ("Audit: rules-variants")
and docs/RULES.md say the loser opens, as in classic.
"""

from __future__ import annotations

from tests.engine.helpers import pid
from tests.engine.perudo_support import bid, dudo, perudo_game


def test_under_give_the_loser_of_a_dudo_opens_not_the_winner_who_gained_the_die() -> None:
    for quantity, loser in ((7, 1), (8, 0)):  # 7 fours stand (caller loses); 8 do not (bidder)
        room, roller = perudo_game(["11444", "14566"], settings={"penalty": "give"})
        bid(room, roller, 0, quantity, 4)
        dudo(room, roller, 1)
        assert room.game is not None
        assert room.game.last_reveal is not None
        assert room.game.last_reveal.loser_id == pid(room, loser)
        assert sorted(p.dice_count for p in room.players) == [4, 6]
        assert room.game.opener == pid(room, loser)
