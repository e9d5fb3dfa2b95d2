"""The CFR+ solver of tools/solver, checked on OpenSpiel's liars_dice with one die each.

OpenSpiel's rules, written out here independently of ``tools.solver.games`` (OpenSpiel
itself is not needed): each player rolls one fair die, 6 is wild (it counts toward every
face); player 0 must bid, then bids strictly rise in the order (quantity, face) with
quantity 1–2 and face 1–6, and either player may call instead of raising; on a call the
bidder wins when at least ``quantity`` dice show the face or a 6. The game value for player
0 is −7/258. A pure-Python best response over every history checks the solver's own
exploitability figure.
"""

from __future__ import annotations

import numpy as np
import pytest

from tools.solver import cfr, games

BIDS = [(q, f) for q in (1, 2) for f in range(1, 7)]


def holds(d0: int, d1: int, bid: int) -> bool:
    q, f = BIDS[bid]
    return sum(1 for d in (d0, d1) if d in (f, 6)) >= q


def evaluate(edge: np.ndarray, call: np.ndarray, br: int | None) -> float:
    """Player 0's expected utility, or with ``br`` (0 or 1) that player's best-response utility."""

    def strategy(node: int, last: int, hand: int) -> list[tuple[str | int, float]]:
        acts: list[tuple[str | int, float]] = [
            (b, float(edge[node | 1 << b, hand])) for b in range(last + 1, 12)
        ]
        if node:
            acts.append(("call", float(call[node, hand])))
        return acts

    if br is None:
        total = 0.0

        def walk(node: int, last: int, mover: int, d0: int, d1: int, p: float) -> None:
            nonlocal total
            hand = (d0, d1)[mover] - 1
            for a, pa in strategy(node, last, hand):
                if pa == 0:
                    continue
                if a == "call":
                    bidder = 1 - mover
                    win0 = holds(d0, d1, last) == (bidder == 0)
                    total += p * pa * (1 if win0 else -1)
                else:
                    assert isinstance(a, int)
                    walk(node | 1 << a, a, 1 - mover, d0, d1, p * pa)

        for d0 in range(1, 7):
            for d1 in range(1, 7):
                walk(0, -1, 0, d0, d1, 1 / 36)
        return total

    # best response of `br` against the other's strategy, per history (public) and own die
    other = 1 - br

    def best(node: int, last: int, mover: int, reach: list[float]) -> list[float]:
        """Value for `br` of each own die, given the other's reach over their die."""
        out = [0.0] * 6
        if mover == br:
            options: list[list[float]] = []
            if node:
                options.append(terminal(last, mover, reach))
            for b in range(last + 1, 12):
                options.append(best(node | 1 << b, b, other, reach))
            return [max(o[h] for o in options) for h in range(6)]
        # the other moves: split their reach over their actions
        calls = [reach[h] * float(call[node, h]) for h in range(6)] if node else [0.0] * 6
        if node:
            out = terminal(last, mover, calls)
        for b in range(last + 1, 12):
            sub = [reach[h] * float(edge[node | 1 << b, h]) for h in range(6)]
            if any(sub):
                v = best(node | 1 << b, b, br, sub)
                out = [x + y for x, y in zip(out, v, strict=True)]
        return out

    def terminal(last: int, caller: int, reach: list[float]) -> list[float]:
        bidder = 1 - caller
        vals = []
        for mine in range(1, 7):
            v = 0.0
            for theirs in range(1, 7):
                d0, d1 = (mine, theirs) if br == 0 else (theirs, mine)
                br_wins = holds(d0, d1, last) == (bidder == br)
                v += reach[theirs - 1] / 6 * (1 if br_wins else -1)
            vals.append(v)
        return vals

    root = best(0, -1, 0, [1.0] * 6)
    return sum(root) / 6


@pytest.fixture(scope="module")
def solved() -> tuple[cfr.Tree, cfr.Strategy]:
    return cfr.solve(games.openspiel(1, 1), 600)


def test_cfr_plus_reaches_openspiels_game_value(solved: tuple[cfr.Tree, cfr.Strategy]) -> None:
    tree, avg = solved
    assert tree.value(avg) == pytest.approx(-7 / 258, abs=2e-3)
    assert tree.exploitability(avg) < 1e-3


def test_an_independent_best_response_agrees_with_the_solvers(
    solved: tuple[cfr.Tree, cfr.Strategy],
) -> None:
    tree, avg = solved
    on_policy = evaluate(avg.edge, avg.call, None)
    assert on_policy == pytest.approx(tree.value(avg), abs=1e-6)
    br1 = evaluate(avg.edge, avg.call, 1)
    br0 = evaluate(avg.edge, avg.call, 0)
    assert br0 == pytest.approx(tree.best_response(0, avg), abs=1e-6)
    assert br1 == pytest.approx(tree.best_response(1, avg), abs=1e-6)
    # at an equilibrium neither best response gains much: both are near the game value
    assert br0 == pytest.approx(-7 / 258, abs=2e-3)
    assert br1 == pytest.approx(7 / 258, abs=2e-3)


def test_a_uniform_strategy_is_far_from_equilibrium() -> None:
    tree = cfr.Tree(games.openspiel(1, 1))
    n = tree.N
    uniform = tree.regret_match(np.zeros((n, tree.H)), np.zeros((n, tree.H)))
    expl = tree.exploitability(uniform)
    assert expl > 0.3
    assert evaluate(uniform.edge, uniform.call, 0) == pytest.approx(tree.best_response(0, uniform))


@pytest.mark.parametrize("seat", [0, 1])
def test_a_restricted_nash_response_trades_safety_for_exploiting_its_model(seat: int) -> None:
    # the model: a player who plays uniformly at random; at p = 1 the response is a best
    # response to it, at p = 0 an equilibrium, and in between it gains on the model against
    # the equilibrium while conceding less to a best responder than the best response does
    tree = cfr.Tree(games.openspiel(1, 1))
    n = tree.N
    model = tree.regret_match(np.zeros((n, tree.H)), np.zeros((n, tree.H)))
    other = 1 - seat
    value = -7 / 258 if seat == 0 else 7 / 258
    out = {}
    for p in (0.0, 0.5, 1.0):
        _, avg = cfr.solve_restricted(games.openspiel(1, 1), 400, seat, model, p)
        against_model = tree.value(tree.combine(avg, model, seat), seat)
        conceded = tree.best_response(other, avg) + value
        out[p] = (against_model, conceded)
    assert out[1.0][0] == pytest.approx(tree.best_response(seat, model), abs=2e-3)
    assert out[0.0][1] == pytest.approx(0, abs=3e-3)
    assert out[0.0][0] + 0.05 < out[0.5][0] < out[1.0][0] + 1e-6
    assert out[0.5][1] < out[1.0][1] - 0.05
