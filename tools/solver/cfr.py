"""Vectorised CFR+ and exact best responses for one heads-up round (``games.Game``).

The public state of a round is the set of bids made so far (bids strictly rise, so the set
gives their order): a node is a bitmask over the B bids, 2^B nodes in all. Node ``s`` with
highest bit ``b`` was reached from ``s - 2^b`` by the bid ``b``; the nodes with highest bit
``b`` are exactly ``2^b .. 2^(b+1) - 1`` and their parents ``0 .. 2^b - 1``, so every pass
over the tree is B slices. Player 0 moves at nodes of even popcount. An information set is
(node, own hand): the node is public.

Per node, arrays over the mover's hands (padded to the larger hand count):

- ``edge[c]``: the bid that leads into ``c`` (chosen by the mover at ``parent(c)``),
- ``call[s]``: calling the last bid of ``s`` (``s != 0``).

``solve`` runs CFR+ (regret matching+, alternating updates, linear averaging) and returns
the average strategy; ``best_response`` gives player i's best-response value against the
other player's strategy (exact: the node is public, so the best response is a max per
(node, hand)).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .games import Game


@dataclass
class Strategy:
    """A behaviour strategy for both players: ``edge[c, h]``, ``call[s, h]`` (mover's hand h)."""

    edge: np.ndarray
    call: np.ndarray


class Tree:
    """The node lattice of one game, with the chance and payoff tables it needs."""

    def __init__(self, game: Game, dtype: type = np.float64) -> None:
        self.game = game
        self.dtype = dtype
        self.B = len(game.bids)
        self.N = 1 << self.B
        hands0, p0 = game.hands(0)
        hands1, p1 = game.hands(1)
        self.H = max(len(hands0), len(hands1))
        self.p = [np.zeros(self.H), np.zeros(self.H)]
        self.p[0][: len(p0)] = p0
        self.p[1][: len(p1)] = p1
        self.Hn = (len(hands0), len(hands1))
        c0 = np.zeros((self.H, self.B), int)
        c1 = np.zeros((self.H, self.B), int)
        c0[: len(p0)] = game.counts(0)
        c1[: len(p1)] = game.counts(1)
        q = game.quantity
        # true[b, h0, h1]: the bid holds; sign +1 when the bidder wins
        self.sign = np.where(c0.T[:, :, None] + c1.T[:, None, :] >= q[:, None, None], 1.0, -1.0)
        pop = np.zeros(self.N, np.uint8)
        for b in range(self.B):
            pop[1 << b : 2 << b] = pop[: 1 << b] + 1
        self.mover = (pop & 1).astype(np.int8)
        """Who moves at each node (0 at even popcount)."""
        nact = np.zeros(self.N)
        for b in range(self.B):
            nact[1 << b : 2 << b] = self.B - b  # later bids + the call
        nact[0] = game.opening.sum()
        self.nact = nact
        self.legal_root = np.zeros(self.B, bool)
        self.legal_root[:] = game.opening
        # payoff matrices per bid for each traverser: rows own hand, cols the other's, times
        # the other's chance; multiplied by +1 when the traverser is the bidder
        self.pay = [
            self.sign * self.p[1][None, None, :],
            np.transpose(self.sign, (0, 2, 1)) * self.p[0][None, None, :],
        ]

    # -- passes -------------------------------------------------------------------------

    def blocks(self) -> range:
        return range(self.B)

    def regret_match(self, r_edge: np.ndarray, r_call: np.ndarray) -> Strategy:
        """Current strategy from (positive) regrets; uniform where none is positive."""
        norm = r_call.copy()
        norm[0] = 0
        for b in self.blocks():
            lo, hi = 1 << b, 2 << b
            norm[: hi - lo] += r_edge[lo:hi]
        # opening bids not allowed at the root never get regret (kept 0 by the update)
        safe = np.where(norm > 0, norm, 1.0)
        uniform = (1.0 / self.nact)[:, None]
        call = np.where(norm > 0, r_call / safe, uniform)
        call[0] = 0
        edge = np.empty_like(r_edge)
        edge[0] = 0
        for b in self.blocks():
            lo, hi = 1 << b, 2 << b
            par = slice(0, hi - lo)
            edge[lo:hi] = np.where(norm[par] > 0, r_edge[lo:hi] / safe[par], uniform[par])
        self._mask_root(edge)
        return Strategy(edge, call)

    def _mask_root(self, edge: np.ndarray) -> None:
        for b in range(self.B):
            if not self.legal_root[b]:
                edge[1 << b] = 0

    def reach(self, sigma: Strategy, player: int) -> np.ndarray:
        """``player``'s own reach probability of every node, per hand."""
        out = np.empty((self.N, self.H), self.dtype)
        out[0] = 1
        for b in self.blocks():
            lo, hi = 1 << b, 2 << b
            par = slice(0, hi - lo)
            mine = (self.mover[par] == player)[:, None]
            out[lo:hi] = out[par] * np.where(mine, sigma.edge[lo:hi], 1.0)
        return out

    def call_values(self, player: int, reach_other: np.ndarray, sigma: Strategy) -> np.ndarray:
        """Counterfactual value for ``player`` of the call at every node, per own hand."""
        other = 1 - player
        rc = reach_other * np.where((self.mover == other)[:, None], sigma.call, 1.0)
        return self.call_values_rc(player, rc)

    def call_values_rc(self, player: int, rc: np.ndarray) -> np.ndarray:
        """``call_values`` from the other player's reach of every call (its reach times its
        chance of calling where it moves, 1 where ``player`` moves)."""
        cv = np.zeros((self.N, self.H), self.dtype)
        for b in self.blocks():
            lo, hi = 1 << b, 2 << b
            # the bidder of node c moved at parent(c): popcount(c) - 1
            bidder_is_me = self.mover[lo:hi] != player
            block = rc[lo:hi] @ self.pay[player][b].T
            cv[lo:hi] = np.where(bidder_is_me[:, None], block, -block)
        return cv

    def values(self, player: int, sigma: Strategy, cv: np.ndarray) -> np.ndarray:
        """Counterfactual value of every node for ``player`` under ``sigma``."""
        mine_node = (self.mover == player)[:, None]
        v = cv * np.where(mine_node, sigma.call, 1.0)
        for b in reversed(self.blocks()):
            lo, hi = 1 << b, 2 << b
            par = slice(0, hi - lo)
            v[par] += v[lo:hi] * np.where(mine_node[par], sigma.edge[lo:hi], 1.0)
        return v

    # -- public -------------------------------------------------------------------------

    def best_response(self, player: int, sigma: Strategy) -> float:
        """Player's best-response utility against the other player's part of ``sigma``."""
        other = 1 - player
        r = self.reach(sigma, other)
        cv = self.call_values(player, r, sigma)
        v = self._br_values(player, sigma, cv)
        return float(self.p[player] @ v[0])

    def _br_values(self, player: int, sigma: Strategy, cv: np.ndarray) -> np.ndarray:
        mine_node = (self.mover == player)[:, None]
        v = cv.copy()
        v[0] = -np.inf if player == 0 else 0.0
        for b in reversed(self.blocks()):
            lo, hi = 1 << b, 2 << b
            par = slice(0, hi - lo)
            child = v[lo:hi]
            mine = mine_node[par]
            v[par] = np.where(mine, np.maximum(v[par], child), v[par] + child)
        # a forbidden opening is a child of the root only: redo the root from its legal children
        if player == 0:
            kids = [v[1 << b] for b in range(self.B) if self.legal_root[b]]
            v[0] = np.max(np.stack(kids), axis=0)
        return v

    def value(self, sigma: Strategy, player: int = 0) -> float:
        """Expected utility of ``player`` when both play ``sigma``."""
        r = self.reach(sigma, 1 - player)
        cv = self.call_values(player, r, sigma)
        v = self.values(player, sigma, cv)
        return float(self.p[player] @ v[0])

    def combine(self, mine: Strategy, theirs: Strategy, seat: int) -> Strategy:
        """``seat``'s part of ``mine`` with the other seat's part of ``theirs``."""
        par_mover = np.empty(self.N, np.int8)
        par_mover[0] = -1
        par_mover[1:] = 1 - self.mover[1:]
        edge = np.where((par_mover == seat)[:, None], mine.edge, theirs.edge)
        call = np.where((self.mover == seat)[:, None], mine.call, theirs.call)
        return Strategy(edge, call)

    def exploitability(self, sigma: Strategy) -> float:
        """Mean of both best-response gains over the game value (utility units, ±1 payoffs)."""
        return (self.best_response(0, sigma) + self.best_response(1, sigma)) / 2


def normalise(tree: Tree, s_edge: np.ndarray, s_call: np.ndarray) -> Strategy:
    """Average strategy from the accumulated weights (uniform where never reached)."""
    return tree.regret_match(s_edge, s_call)


def solve(
    game: Game, iterations: int, *, dtype: type = np.float64, log_every: int = 0
) -> tuple[Tree, Strategy]:
    """CFR+ with alternating updates and linear averaging; returns the average strategy."""
    tree = Tree(game, dtype)
    n, h = tree.N, tree.H
    r_edge = np.zeros((n, h), dtype)
    r_call = np.zeros((n, h), dtype)
    s_edge = np.zeros((n, h), dtype)
    s_call = np.zeros((n, h), dtype)
    start = time.time()
    mover_is = [(tree.mover == i)[:, None] for i in (0, 1)]
    par_mover = np.empty(n, np.int8)
    par_mover[0] = -1
    par_mover[1:] = 1 - tree.mover[1:]
    edge_is = [(par_mover == i)[:, None] for i in (0, 1)]
    edge_allowed = np.ones(n, bool)
    edge_allowed[0] = False
    for b in range(tree.B):
        if not game.opening[b]:
            edge_allowed[1 << b] = False
    for t in range(1, iterations + 1):
        for i in (0, 1):
            sigma = tree.regret_match(r_edge, r_call)
            reach_other = tree.reach(sigma, 1 - i)
            cv = tree.call_values(i, reach_other, sigma)
            v = tree.values(i, sigma, cv)
            # regrets of i's actions: edges out of i's nodes, calls at i's nodes
            parent_v = np.empty_like(v)
            for b in range(tree.B):
                lo, hi = 1 << b, 2 << b
                parent_v[lo:hi] = v[: hi - lo]
            upd = edge_is[i] & edge_allowed[:, None]
            r_edge += np.where(upd, v - parent_v, 0.0)
            np.maximum(r_edge, 0, out=r_edge)
            callable_ = mover_is[i].copy()
            callable_[0] = False
            r_call += np.where(callable_, cv - v, 0.0)
            np.maximum(r_call, 0, out=r_call)
            # linear average of i's strategy, weighted by i's own reach
            own = tree.reach(sigma, i)
            parent_own = np.empty_like(own)
            parent_own[0] = 0
            for b in range(tree.B):
                lo, hi = 1 << b, 2 << b
                parent_own[lo:hi] = own[: hi - lo]
            s_edge += np.where(edge_is[i], t * parent_own * sigma.edge, 0.0)
            s_call += np.where(callable_, t * own * sigma.call, 0.0)
        if log_every and t % log_every == 0:
            avg = normalise(tree, s_edge, s_call)
            print(
                f"{game.name} t={t} expl={tree.exploitability(avg):.6f} "
                f"v0={tree.value(avg):.6f} ({time.time() - start:.1f}s)",
                flush=True,
            )
    return tree, normalise(tree, s_edge, s_call)


def solve_restricted(
    game: Game,
    iterations: int,
    seat: int,
    model: Strategy,
    p: float,
    *,
    dtype: type = np.float64,
    log_every: int = 0,
) -> tuple[Tree, Strategy]:
    """A restricted Nash response for ``seat`` (Johanson et al., 2007): CFR+ in the game where
    the other player plays ``model`` with probability ``p`` (chosen once, before the deal,
    unseen) and anything else otherwise. ``seat``'s part of the returned average strategy
    exploits ``model`` as far as it can while conceding as little as the weight ``p`` asks:
    at ``p = 0`` it is an equilibrium, at ``p = 1`` a best response to the model. The other
    seat's part is the free player's average (not meant to be played)."""
    tree = Tree(game, dtype)
    n, h = tree.N, tree.H
    other = 1 - seat
    r_edge = np.zeros((n, h), dtype)
    r_call = np.zeros((n, h), dtype)
    s_edge = np.zeros((n, h), dtype)
    s_call = np.zeros((n, h), dtype)
    # the model's part of the counterfactual reach: its reach times its call where it moves
    model_rc = tree.reach(model, other) * np.where((tree.mover == other)[:, None], model.call, 1.0)
    mover_is = [(tree.mover == i)[:, None] for i in (0, 1)]
    par_mover = np.empty(n, np.int8)
    par_mover[0] = -1
    par_mover[1:] = 1 - tree.mover[1:]
    edge_is = [(par_mover == i)[:, None] for i in (0, 1)]
    edge_allowed = np.ones(n, bool)
    edge_allowed[0] = False
    for b in range(tree.B):
        if not game.opening[b]:
            edge_allowed[1 << b] = False
    start = time.time()
    for t in range(1, iterations + 1):
        for i in (0, 1):
            sigma = tree.regret_match(r_edge, r_call)
            if i == seat:
                free_rc = tree.reach(sigma, other) * np.where(mover_is[other], sigma.call, 1.0)
                cv = tree.call_values_rc(i, p * model_rc + (1 - p) * free_rc)
            else:
                cv = tree.call_values(i, tree.reach(sigma, seat), sigma)
            v = tree.values(i, sigma, cv)
            parent_v = np.empty_like(v)
            for b in range(tree.B):
                lo, hi = 1 << b, 2 << b
                parent_v[lo:hi] = v[: hi - lo]
            upd = edge_is[i] & edge_allowed[:, None]
            r_edge += np.where(upd, v - parent_v, 0.0)
            np.maximum(r_edge, 0, out=r_edge)
            callable_ = mover_is[i].copy()
            callable_[0] = False
            r_call += np.where(callable_, cv - v, 0.0)
            np.maximum(r_call, 0, out=r_call)
            own = tree.reach(sigma, i)
            parent_own = np.empty_like(own)
            parent_own[0] = 0
            for b in range(tree.B):
                lo, hi = 1 << b, 2 << b
                parent_own[lo:hi] = own[: hi - lo]
            s_edge += np.where(edge_is[i], t * parent_own * sigma.edge, 0.0)
            s_call += np.where(callable_, t * own * sigma.call, 0.0)
        if log_every and t % log_every == 0:
            avg = normalise(tree, s_edge, s_call)
            print(
                f"{game.name} seat {seat} p={p} t={t} "
                f"br={tree.best_response(other, avg):.6f} ({time.time() - start:.1f}s)",
                flush=True,
            )
    return tree, normalise(tree, s_edge, s_call)
