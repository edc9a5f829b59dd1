"""The oracle policy's compiled batch (:class:`cgdcore.pc.OraclePolicy`): the candidate separating sets of one
node and order, and the first that d-separates a neighbour."""
from __future__ import annotations

import numpy as np

from cgdcore.jit import njit

from cgdcore.graph.kernels import reachable_kernel


@njit(cache=True, nogil=True)
def subsets(members, order):  # pragma: no cover - compiled
    """All size-``order`` subsets of ``members`` in lexicographic order, as an (m, order) array."""
    k = members.shape[0]
    m = 1
    for i in range(order):
        m = m * (k - i) // (i + 1)
    combos = np.empty((m, order), np.int64)
    idx = np.arange(order)
    for r in range(m):
        for i in range(order):
            combos[r, i] = members[idx[i]]
        # next combination (lexicographic)
        i = order - 1
        while i >= 0 and idx[i] == k - order + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, order):
            idx[j] = idx[j - 1] + 1
    return combos


@njit(cache=True, nogil=True)
def first_separating(x, combos, reach, have, y, seen, has_seen, adjacent, pptr, pidx, cptr,
                     cidx):  # pragma: no cover - compiled
    """Index of the first subset (in order) that excludes y, was not already asked from y's
    side (S ⊆ ``seen``, a node mask, when ``has_seen``) and d-separates x and y; -1 if none.
    Also returns how many subsets were asked.

    ``reach[r]`` (the nodes d-connected to x given ``combos[r]``) is computed the first time a y
    needs it and marked in ``have``, so later neighbours of the same x reuse it. When x and y are
    adjacent in the DAG (``adjacent``) no subset separates them and nothing is computed."""
    asked = 0
    for r in range(combos.shape[0]):
        skip = False
        inside = True
        for i in range(combos.shape[1]):
            v = combos[r, i]
            if v == y:
                skip = True
                break
            if seen[v] == 0:
                inside = False
        if skip:
            continue
        if inside and has_seen:
            continue
        asked += 1
        if adjacent:
            continue
        if have[r] == 0:
            reach[r] = reachable_kernel(x, combos[r], pptr, pidx, cptr, cidx)
            have[r] = 1
        if reach[r, y] == 0:
            return r, asked
    return -1, asked
