"""EM-PC's flip distance (cgdcore.central.kernels.greedy_flip_steps) against the plain greedy search: every step
recounts each candidate removal's change of G² from the current counts, where the kernel keeps the changes of the
counts it did not touch."""
import itertools
import math

import numpy as np
import pytest
from scipy.special import chdtri

from cgdcore.central.empc import flip_distance


def _f(v):
    return v * math.log(v) if v > 0 else 0.0


def _drop(v):
    return _f(v - 1.0) - _f(v)


def plain_greedy_steps(tables, threshold, positive, max_steps):
    """The search as the reference code states it: remove the record whose removal moves G² furthest towards the
    critical value (first stratum, then first cell in row-major order, on ties) until the best move would reach it."""
    t = np.array(tables, dtype=float)
    K, kx, ky = t.shape
    g = 0.0
    for k in range(K):
        g += 2.0 * (_f(t[k].sum()) - sum(_f(v) for v in t[k].sum(axis=1)) + sum(_f(v) for v in t[k].ravel())
                    - sum(_f(v) for v in t[k].sum(axis=0)))
    steps = 0
    while True:
        best = []
        for k in range(K):
            ni, nj, nk = t[k].sum(axis=1), t[k].sum(axis=0), t[k].sum()
            bv, bi, bj = -math.inf, -1, -1
            for i in range(kx):
                if ni[i] == 0:
                    continue
                for j in range(ky):
                    if t[k, i, j] == 0:
                        continue
                    v = positive * 2.0 * (_drop(t[k, i, j]) - _drop(ni[i]) - _drop(nj[j]) + _drop(nk))
                    if v > bv:
                        bv, bi, bj = v, i, j
            best.append((bv, bi, bj))
        k = int(np.argmax([b[0] for b in best]))
        v, i, j = best[k]
        if not math.isfinite(v) or positive * (g + positive * v) >= positive * threshold or steps >= max_steps:
            return steps
        steps += 1
        t[k, i, j] -= 1.0
        g += positive * v


def _kernel(t, threshold, positive, cap):
    from cgdcore.central.kernels import greedy_flip_steps

    return int(greedy_flip_steps(np.ascontiguousarray(t, dtype=np.int64), float(threshold), positive, cap))


def test_every_two_by_two_table_up_to_three_per_cell_gives_the_plain_searchs_steps():
    """All 256 tables of one 2 × 2 stratum with counts 0–3 (ties everywhere), both directions, three levels."""
    for cells in itertools.product(range(4), repeat=4):
        t = np.array(cells).reshape(1, 2, 2)
        cap = max(int(t.sum()) - 1, 0)
        for positive, level in ((1, 0.05), (-1, 0.05), (1, 0.5), (-1, 0.9), (1, 0.9)):
            threshold = float(chdtri(1, level))
            assert _kernel(t, threshold, positive, cap) == plain_greedy_steps(t, threshold, positive, cap), (
                cells, positive, level)


@pytest.mark.parametrize("seed", range(4))
def test_random_strata_of_several_shapes_give_the_plain_searchs_steps(seed):
    """Several strata (empty ones and empty rows included), 2–3 states, a dependent row, and a step cap."""
    rng = np.random.default_rng(seed)
    for _ in range(60):
        K, kx, ky = int(rng.integers(1, 4)), int(rng.integers(2, 4)), int(rng.integers(2, 4))
        t = rng.integers(0, 12, size=(K, kx, ky))
        t[:, 0, :] *= int(rng.integers(1, 4))
        if rng.random() < 0.3:
            t[int(rng.integers(K))] = 0
        if rng.random() < 0.3:
            t[:, -1, :] = 0
        dof = max((kx - 1) * (ky - 1) * K, 1)
        for positive in (1, -1):
            threshold = float(chdtri(dof, 0.05))
            for cap in (max(int(t.sum()) - 1, 0), 3):
                assert _kernel(t, threshold, positive, cap) == plain_greedy_steps(t, threshold, positive, cap)


def test_flip_distance_is_signed_by_the_decision_it_flips():
    dependent = np.array([[[30, 2], [3, 25]]])
    independent = np.array([[[10, 10], [10, 10]]])
    assert flip_distance(dependent, 1e-9, 0.05, 1) < 0 < flip_distance(independent, 1.0, 0.05, 1)
    assert flip_distance(independent, 0.05, 0.05, 1) == 0
