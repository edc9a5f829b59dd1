"""Graphs as boolean adjacency matrices: DAGs, CPDAGs, d-separation, Meek's rules.

Convention used everywhere in cgdcore: a graph over d variables is a (d, d) boolean
matrix ``A``. ``A[i, j] and not A[j, i]`` is the arc i -> j; ``A[i, j] and A[j, i]`` is
the undirected edge i - j (an edge of a CPDAG whose direction is not identified).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


# --------------------------------------------------------------------------- basics
def skeleton(A: np.ndarray) -> np.ndarray:
    """Symmetric adjacency (i and j adjacent) of any graph."""
    A = np.asarray(A, dtype=bool)
    return A | A.T


def directed_part(A: np.ndarray) -> np.ndarray:
    """Arcs that are directed (i -> j with no j -> i)."""
    A = np.asarray(A, dtype=bool)
    return A & ~A.T


def undirected_part(A: np.ndarray) -> np.ndarray:
    """Symmetric matrix of the undirected edges."""
    A = np.asarray(A, dtype=bool)
    return A & A.T


def edge_list(A: np.ndarray) -> list[tuple[int, int, bool]]:
    """(source, target, directed) per edge; an undirected edge is listed once with i < j."""
    A = np.asarray(A, dtype=bool)
    out = []
    d = A.shape[0]
    for i in range(d):
        for j in range(d):
            if not A[i, j]:
                continue
            if A[j, i]:
                if i < j:
                    out.append((i, j, False))
            else:
                out.append((i, j, True))
    return out


def from_edge_list(d: int, edges: Iterable[tuple[int, int, bool]]) -> np.ndarray:
    """Inverse of :func:`edge_list`."""
    A = np.zeros((d, d), dtype=bool)
    for i, j, directed in edges:
        A[i, j] = True
        if not directed:
            A[j, i] = True
    return A


def topological_order(dag: np.ndarray) -> list[int]:
    """Kahn's algorithm; raises ValueError on a directed cycle."""
    dag = np.asarray(dag, dtype=bool)
    indeg = dag.sum(axis=0).astype(int)
    ready = sorted(np.flatnonzero(indeg == 0).tolist())
    order: list[int] = []
    while ready:
        v = ready.pop(0)
        order.append(v)
        for w in np.flatnonzero(dag[v]):
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(int(w))
        ready.sort()
    if len(order) != dag.shape[0]:
        raise ValueError("graph has a directed cycle")
    return order


def is_dag(A: np.ndarray) -> bool:
    A = np.asarray(A, dtype=bool)
    if (A & A.T).any():
        return False
    try:
        topological_order(A)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------ d-separation
class DSeparation:
    """d-separation queries on a DAG by the reachable-nodes ("Bayes-ball") search.

    Koller & Friedman (2009), Algorithm 3.1: y is d-connected to x given Z iff y is
    reachable from x along a trail that is active given Z. The search is compiled
    (:mod:`cgdcore.graph.kernels`); one search answers every y for a given (x, S).
    """

    def __init__(self, dag: np.ndarray):
        dag = np.asarray(dag, dtype=bool)
        if not is_dag(dag):
            raise ValueError("d-separation needs a DAG")
        from .kernels import reachable_kernel

        self.dag = dag
        d = dag.shape[0]
        self._kernel = reachable_kernel
        parents = [np.flatnonzero(dag[:, v]) for v in range(d)]
        children = [np.flatnonzero(dag[v]) for v in range(d)]
        self._pptr = np.concatenate([[0], np.cumsum([len(p) for p in parents])]).astype(np.int64)
        self._cptr = np.concatenate([[0], np.cumsum([len(c) for c in children])]).astype(np.int64)
        self._pidx = np.concatenate(parents + [np.empty(0, int)]).astype(np.int64)
        self._cidx = np.concatenate(children + [np.empty(0, int)]).astype(np.int64)
        self._cache: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
        self._cache_size = 200_000

    def is_separated(self, x: int, y: int, S: Sequence[int]) -> bool:
        """True iff x and y are d-separated given S in the DAG."""
        if x in S or y in S:
            raise ValueError("x and y must not be in the conditioning set")
        return not self.reachable(x, tuple(sorted(S)))[y]

    def reachable(self, x: int, S: tuple[int, ...]) -> np.ndarray:
        """uint8 indicator (length d) of the nodes d-connected to x given S; cached per (x, S).

        PC asks with x fixed while y runs over x's neighbours, so the cache turns most
        queries into a lookup.
        """
        key = (x, S)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        out = self._kernel(x, np.array(S, dtype=np.int64), self._pptr, self._pidx, self._cptr, self._cidx)
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[key] = out
        return out


# --------------------------------------------------------------------- CPDAG of a DAG
def cpdag_from_dag(dag: np.ndarray) -> np.ndarray:
    """The CPDAG (essential graph) of a DAG by Chickering's edge labelling.

    Chickering (1995), "A transformational characterization of equivalent Bayesian
    network structures", procedures Order-Edges and Find-Compelled. Compelled arcs stay
    directed; reversible arcs become undirected. Independent of the Meek-rule code that
    PC uses, so it serves as an oracle for it.
    """
    dag = np.asarray(dag, dtype=bool)
    d = dag.shape[0]
    order = topological_order(dag)
    rank = {v: r for r, v in enumerate(order)}
    # Order-Edges: by target in increasing order, then source in decreasing order.
    edges = sorted(zip(*np.nonzero(dag)), key=lambda e: (rank[int(e[1])], -rank[int(e[0])]))
    edges = [(int(a), int(b)) for a, b in edges]
    label: dict[tuple[int, int], str] = {e: "unknown" for e in edges}
    parents = [set(np.flatnonzero(dag[:, v]).tolist()) for v in range(d)]
    for x, y in edges:
        if label[(x, y)] != "unknown":
            continue
        done = False
        for w in parents[x]:
            if label[(w, x)] != "compelled":
                continue
            if w not in parents[y]:
                for p in parents[y]:
                    label[(p, y)] = "compelled"
                done = True
                break
            label[(w, y)] = "compelled"
        if done:
            continue
        compel = any(z != x and z not in parents[x] for z in parents[y])
        for p in parents[y]:
            if label[(p, y)] == "unknown":
                label[(p, y)] = "compelled" if compel else "reversible"
    out = np.zeros((d, d), dtype=bool)
    for (a, b), lab in label.items():
        out[a, b] = True
        if lab == "reversible":
            out[b, a] = True
    return out


# ----------------------------------------------------------------------- Meek rules
def meek_closure(
    A: np.ndarray, protected: Iterable[tuple[int, int, int]] = (), rules: str = "1234"
) -> np.ndarray:
    """Apply Meek's orientation rules R1–R4 until nothing changes.

    Meek (1995), "Causal inference and causal explanation with background knowledge",
    rules 1–4. ``protected`` holds ambiguous unshielded triples (a, b, c) (conservative /
    majority PC, Ramsey et al. 2006) through which R1 and R3 must not propagate.

    R1  c -> a - b, c and b non-adjacent            => a -> b
    R2  a -> c -> b and a - b                        => a -> b
    R3  a - c -> b, a - e -> b, c and e non-adj.     => a -> b
    R4  a - c -> e -> b, a adj. e, c and b non-adj.  => a -> b
    """
    G = np.array(A, dtype=bool)
    prot = {(a, b, c) for a, b, c in protected} | {(c, b, a) for a, b, c in protected}
    d = G.shape[0]
    changed = True
    while changed:
        changed = False
        adj = G | G.T
        und = G & G.T
        dirc = G & ~G.T
        for a, b in zip(*np.nonzero(np.triu(und))):
            for (u, v) in ((int(a), int(b)), (int(b), int(a))):
                if not (G[u, v] and G[v, u]):
                    break  # oriented by the first direction in this pass
                if _meek_applies(u, v, adj, und, dirc, prot, rules, d):
                    G[v, u] = False
                    changed = True
                    adj = G | G.T
                    und = G & G.T
                    dirc = G & ~G.T
                    break
    return G


def _meek_applies(a, b, adj, und, dirc, prot, rules, d) -> bool:
    """Does any rule orient the undirected edge a - b as a -> b?"""
    if "1" in rules:
        for c in np.flatnonzero(dirc[:, a]):
            if not adj[c, b] and c != b and (int(c), a, b) not in prot:
                return True
    if "2" in rules:
        if np.any(dirc[a] & dirc[:, b]):
            return True
    if "3" in rules:
        cands = np.flatnonzero(und[a] & dirc[:, b])
        for i in range(len(cands)):
            for j in range(i + 1, len(cands)):
                c, e = cands[i], cands[j]
                if not adj[c, e] and (int(c), a, int(e)) not in prot:
                    return True
    if "4" in rules:
        for c in np.flatnonzero(und[a]):
            if adj[c, b]:
                continue
            for e in np.flatnonzero(dirc[c] & dirc[:, b]):
                if adj[a, e] and e != a:
                    return True
    return False


def unshielded_triples(skel: np.ndarray) -> list[tuple[int, int, int]]:
    """All (i, k, j) with i < j, i - k - j adjacent and i, j non-adjacent."""
    skel = np.asarray(skel, dtype=bool)
    d = skel.shape[0]
    out = []
    for k in range(d):
        nb = np.flatnonzero(skel[k])
        for a in range(len(nb)):
            for b in range(a + 1, len(nb)):
                i, j = int(nb[a]), int(nb[b])
                if not skel[i, j]:
                    out.append((i, k, j))
    out.sort(key=lambda t: (t[0], t[2], t[1]))
    return out
