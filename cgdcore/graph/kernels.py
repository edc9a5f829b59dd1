"""Compiled reachable-nodes search for d-separation (Koller & Friedman 2009, Alg. 3.1), used by
:class:`cgdcore.graph.DSeparation` and the oracle policy; numba loads only when a d-separation query is asked."""
from __future__ import annotations

import numpy as np

from cgdcore.jit import njit


@njit(cache=True, nogil=True)
def reachable_kernel(x, S, pptr, pidx, cptr, cidx):  # pragma: no cover - compiled
    """uint8 indicator of the nodes d-connected to ``x`` given ``S``.

    The DAG is given as CSR parent lists (``pptr``, ``pidx``) and child lists
    (``cptr``, ``cidx``). A trail may pass a non-collider v only if v ∉ S and a
    collider v only if v is S or an ancestor of S.
    """
    d = pptr.shape[0] - 1
    in_s = np.zeros(d, np.uint8)
    for s in S:
        in_s[s] = 1
    stack = np.empty(4 * pidx.shape[0] + d + 2, np.int64)
    # open colliders: ancestors of S, S included
    opened = np.zeros(d, np.uint8)
    top = 0
    for s in S:
        if not opened[s]:
            opened[s] = 1
            stack[top] = s
            top += 1
    while top:
        top -= 1
        v = stack[top]
        for k in range(pptr[v], pptr[v + 1]):
            p = pidx[k]
            if not opened[p]:
                opened[p] = 1
                stack[top] = p
                top += 1
    # the ball: entry 2v = v reached from a child (moving up), 2v+1 = from a parent (down)
    up = np.zeros(d, np.uint8)
    down = np.zeros(d, np.uint8)
    stack[0] = 2 * x
    top = 1
    while top:
        top -= 1
        e = stack[top]
        v = e >> 1
        if e & 1 == 0:
            if up[v]:
                continue
            up[v] = 1
            if in_s[v]:
                continue
            for k in range(pptr[v], pptr[v + 1]):
                if not up[pidx[k]]:
                    stack[top] = 2 * pidx[k]
                    top += 1
            for k in range(cptr[v], cptr[v + 1]):
                if not down[cidx[k]]:
                    stack[top] = 2 * cidx[k] + 1
                    top += 1
        else:
            if down[v]:
                continue
            down[v] = 1
            if not in_s[v]:
                for k in range(cptr[v], cptr[v + 1]):
                    if not down[cidx[k]]:
                        stack[top] = 2 * cidx[k] + 1
                        top += 1
            if opened[v]:
                for k in range(pptr[v], pptr[v + 1]):
                    if not up[pidx[k]]:
                        stack[top] = 2 * pidx[k]
                        top += 1
    out = up | down
    for s in S:
        out[s] = 0
    out[x] = 0
    return out
