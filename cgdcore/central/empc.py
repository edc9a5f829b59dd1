"""EM-PC (Xu, Yuan & Wu 2017) as in the Priv-PC reference code (seed_privpc.md §4.2).

Per PC order l and node x with |adj(x)| ≥ l + 1 (one "step"):

1. for every neighbour y, G-test p-values of x ⟂ y | S over all size-l subsets S of
   adj(x)\\{y}; keep the S with the largest p;
2. utility of deleting edge x–y: the signed number of records a greedy search must remove
   to flip that G-test's decision at level α (positive when currently independent);
3. utility of deleting the c most deletable edges, for every c, from the sorted utilities
   (the reference's ``NumSig``);
4. choose how many edges β by the exponential mechanism with ε/2, then β edges one by one,
   each by the exponential mechanism with ε/(2β) (utility sensitivity 1).

The greedy flip search is the slow part of the reference (25,140 s on Child); here every
candidate removal's change of G² comes from a closed form over the stratum's margins,
compiled, with each stratum's best move cached so a step costs O(k_x·k_y + K).

Differences from the reference, both deliberate: the count β ranges over 0..|adj(x)|
(the code's range stops at |adj(x)| − 1, so it can never delete every neighbour); and the
accounting records what was released (ε/2 for the count, ε/(2β) per pick) instead of ε
per step by hand — the totals agree when β ≥ 1.
"""
from __future__ import annotations

import numpy as np

from cgdcore.cancel import checkpoint
from cgdcore.pc import Policy, TestRecord
from cgdcore.privacy.ledger import Ledger, validate_epsilon
from cgdcore.privacy.mechanisms import ExponentialMechanism

__all__ = ["flip_distance", "count_utilities", "EMPCPolicy"]


def _kernel():
    from cgdcore.central.kernels import greedy_flip_steps

    return greedy_flip_steps


def flip_distance(tables: np.ndarray, p_value: float, alpha: float, dof: int, max_steps: int | None = None) -> int:
    """Signed greedy number of records to remove to flip a G-test decision at level α.

    ``tables``: (K, k_x, k_y) counts of the test's strata. Positive when the test now says
    independent (p > α) and the search raises G² to the critical value; negative when it says
    dependent and the search lowers G² below it; 0 when p == α (reference ``findJs``).
    """
    from scipy.special import chdtri  # the χ² inverse survival function (what scipy.stats.chi2.isf computes)

    if p_value == alpha:
        return 0
    positive = 1 if p_value > alpha else -1
    t = np.array(tables, dtype=np.int64, order="C")  # a writable copy: one compiled signature, whether the tables
    # came from the read-only cache or were made for this test (the kernel does not write to it)
    n = int(t.sum())
    cap = n - 1 if max_steps is None else min(int(max_steps), n - 1)
    threshold = float(chdtri(max(dof, 1), alpha))
    steps = _kernel()(t, threshold, positive, cap)
    return positive * int(steps)


def count_utilities(js: np.ndarray, p: np.ndarray, alpha: float) -> np.ndarray:
    """Utility of deleting the c edges with the largest flip distances, c = 0..len (``NumSig``).

    Sorted by utility (then p) descending; c = 0 scores −u₀ (−1 more if the top edge is
    independent), c = len scores u_last (−1 if the last is dependent), and in between the
    score rewards cutting exactly at the independent/dependent boundary.
    """
    order = np.lexsort((-np.asarray(p, float), -np.asarray(js, float)))
    u = np.asarray(js, float)[order]
    pv = np.asarray(p, float)[order]
    m = len(u)
    q = np.zeros(m + 1)
    q[0] = -u[0] - 1 if pv[0] >= alpha else -u[0]
    q[m] = u[-1] - 1 if pv[-1] < alpha else u[-1]
    for c in range(1, m):
        if pv[c - 1] > alpha and pv[c] <= alpha:
            q[c] = min(u[c - 1], -u[c]) - 1
        elif pv[c - 1] > alpha and pv[c] > alpha:
            q[c] = -u[c]
        else:
            q[c] = u[c - 1]
    return q


class EMPCPolicy(Policy):
    """Node-wise policy for the PC engine (``decide_node``); see the module docstring."""

    strategy = "node"

    def __init__(self, g2_test, ledger: Ledger, rng: np.random.Generator, *, alpha: float, round_epsilon: float,
                 max_flip_steps: int | None = None):
        self.test = g2_test
        self.ledger = ledger
        self.rng = rng
        self.alpha = float(alpha)
        self.round_epsilon = validate_epsilon(round_epsilon, "the per-step ε")
        self.max_flip_steps = max_flip_steps
        self.exhausted = False
        self.stop_reason: str | None = None
        self.steps = 0

    def decide_node(self, x, order, candidates):
        eps = self.round_epsilon
        if not self.ledger.can_afford(eps / 2, eps / 2):
            self.exhausted = True
            self.stop_reason = (f"the privacy budget ε={self.ledger.budget:g} is used up: the next EM-PC step "
                                f"(ε={eps:.3g}) would exceed it; untested edges were kept")
            return [], []
        records: list[TestRecord] = []
        ys, best_S, best_p, js = [], [], [], []
        stats = self.test.stats
        for y, sets in candidates:
            bp, bS, bres = -1.0, (), None
            for S in sets:
                checkpoint()
                r = self.test(x, y, S)
                records.append(TestRecord(x, y, tuple(S), order, r.statistic, r.p_value, r.p_value > self.alpha,
                                          "skeleton", stage="em-test"))
                if r.p_value > bp:
                    bp, bS, bres = r.p_value, tuple(S), r
            ys.append(y)
            best_S.append(bS)
            best_p.append(bp)
            # deterministic given the data: computed once per test and shared by every run on it
            js.append(self.test.memo(
                ("em-flip", x, y, bS, self.alpha, self.max_flip_steps),
                lambda y=y, S=bS, p=bp, dof=int(bres.dof): flip_distance(stats.table(x, y, S), p, self.alpha, dof,
                                                                         self.max_flip_steps)))
        self.steps += 1
        js_arr = np.array(js, dtype=float)
        q_count = count_utilities(js_arr, np.array(best_p), self.alpha)
        beta = ExponentialMechanism(1.0, eps / 2, self.rng, self.ledger, group="em-count").select(
            q_count, order=order, what=f"how many edges of node {x} to delete")
        deletions = []
        util = js_arr.copy()
        pick_one = ExponentialMechanism(1.0, eps / (2 * beta), self.rng, self.ledger, group="em-select") if beta else None
        for _ in range(beta):
            pick = pick_one.select(np.where(np.isfinite(util), util, -np.inf), order=order,
                                   what=f"which edge of node {x} to delete")
            util[pick] = -np.inf
            deletions.append((ys[pick], best_S[pick]))
        return deletions, records
