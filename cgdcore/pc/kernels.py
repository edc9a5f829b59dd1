"""The oracle policy's compiled batch (:class:`cgdcore.pc.OraclePolicy`): the candidate separating sets of one
node and order, and the first that d-separates a neighbour. The d-connected nodes of 64 candidate sets at a time come
from one bit-parallel reachable-nodes search (:func:`connected_block`)."""
from __future__ import annotations

import numpy as np

from cgdcore.jit import njit

BLOCK = 64  # candidate sets per bit-parallel search (the bits of a uint64)


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
def _pass_on(bits, idx, lo, hi, reached, new, queued, stack, top):  # pragma: no cover - compiled
    """Give each node ``idx[lo:hi]`` (a CSR row: one node's parents or children) the ``bits`` it has not been
    reached with yet in this direction (``reached``, and ``new`` until it is expanded), queueing it if it is not;
    returns the stack's new top."""
    zero = np.uint64(0)
    for k in range(lo, hi):
        w = idx[k]
        fresh = bits & ~reached[w]
        if fresh != zero:
            reached[w] |= fresh
            new[w] |= fresh
            if not queued[w]:
                queued[w] = 1
                stack[top] = w
                top += 1
    return top


@njit(cache=True, nogil=True)
def connected_block(x, combos, start, stop, rtopo, pptr, pidx, cptr, cidx, out):  # pragma: no cover - compiled
    """``out[v]`` bit j set iff v is d-connected to x given ``combos[start + j]`` (j < stop − start ≤ 64).

    The reachable-nodes search of Koller & Friedman (2009), Alg. 3.1 (as :func:`cgdcore.graph.kernels.
    reachable_kernel`), run for up to 64 conditioning sets at once: every node holds one bit per set for "reached
    moving up" (from a child) and "moving down" (from a parent), and only bits new to a node are passed on, so each
    (node, direction, set) is expanded once, as in the one-set search. A trail passes a non-collider v only if v ∉ S
    and a collider v only if v is in S or an ancestor of S (``opened``: S's bits passed up from children to parents,
    children first, ``rtopo`` being a reverse topological order)."""
    d = pptr.shape[0] - 1
    zero = np.uint64(0)
    in_s = np.zeros(d, np.uint64)
    for j in range(stop - start):
        bit = np.uint64(1) << np.uint64(j)
        for i in range(combos.shape[1]):
            in_s[combos[start + j, i]] |= bit
    opened = in_s.copy()
    for t in range(d):
        v = rtopo[t]
        if opened[v] != zero:
            for k in range(pptr[v], pptr[v + 1]):
                opened[pidx[k]] |= opened[v]
    n = stop - start
    full = ~zero if n == BLOCK else (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    up = np.zeros(d, np.uint64)
    down = np.zeros(d, np.uint64)
    new_up = np.zeros(d, np.uint64)
    new_down = np.zeros(d, np.uint64)
    queued = np.zeros(d, np.uint8)
    stack = np.empty(d, np.int64)
    up[x] = full
    new_up[x] = full
    stack[0] = x
    queued[x] = 1
    top = 1
    while top:
        top -= 1
        v = stack[top]
        queued[v] = 0
        a = new_up[v]
        b = new_down[v]
        new_up[v] = zero
        new_down[v] = zero
        to_parents = (a & ~in_s[v]) | (b & opened[v])  # up through a non-collider; a collider opened by S
        to_children = (a | b) & ~in_s[v]               # down through a non-collider
        if to_parents != zero:
            top = _pass_on(to_parents, pidx, pptr[v], pptr[v + 1], up, new_up, queued, stack, top)
        if to_children != zero:
            top = _pass_on(to_children, cidx, cptr[v], cptr[v + 1], down, new_down, queued, stack, top)
    for v in range(d):
        out[v] = (up[v] | down[v]) & ~in_s[v]
    out[x] = zero


@njit(cache=True, nogil=True)
def first_separating(x, combos, conn, have, y, seen, has_seen, adjacent, rtopo, pptr, pidx, cptr,
                     cidx):  # pragma: no cover - compiled
    """Index of the first subset (in order) that excludes y, was not already asked from y's
    side (S ⊆ ``seen``, a node mask, when ``has_seen``) and d-separates x and y; -1 if none.
    Also returns how many subsets were asked.

    ``conn[r // BLOCK]`` (bit r % BLOCK of each node: d-connected to x given ``combos[r]``) is computed for a block
    of BLOCK subsets the first time a y needs one of them and marked in ``have``, so later neighbours of the same x
    reuse it.
    When x and y are adjacent in the DAG (``adjacent``) no subset separates them and nothing is computed."""
    asked = 0
    m = combos.shape[0]
    for r in range(m):
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
        blk = r // BLOCK
        if have[blk] == 0:
            connected_block(x, combos, blk * BLOCK, min(m, (blk + 1) * BLOCK), rtopo, pptr, pidx, cptr, cidx,
                            conn[blk])
            have[blk] = 1
        if (conn[blk, y] >> np.uint64(r % BLOCK)) & np.uint64(1) == np.uint64(0):
            return r, asked
    return -1, asked
