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
def _ancestors_or_self(dag: np.ndarray) -> list[list[int]]:
    """For each node, the list of its ancestors including itself."""
    d = dag.shape[0]
    anc: list[set[int]] = [set() for _ in range(d)]
    for v in topological_order(dag):
        anc[v].add(v)
        for p in np.flatnonzero(dag[:, v]):
            anc[v] |= anc[int(p)]
    return [sorted(a) for a in anc]


class DSeparation:
    """d-separation queries on a DAG by the reachable-nodes ("Bayes-ball") search.

    Koller & Friedman (2009), Algorithm 3.1: y is d-connected to x given Z iff y is
    reachable from x along a trail that is active given Z.
    """

    def __init__(self, dag: np.ndarray):
        dag = np.asarray(dag, dtype=bool)
        if not is_dag(dag):
            raise ValueError("d-separation needs a DAG")
        self.dag = dag
        d = dag.shape[0]
        self._parents = [np.flatnonzero(dag[:, v]).tolist() for v in range(d)]
        self._children = [np.flatnonzero(dag[v]).tolist() for v in range(d)]
        self._ancestors = _ancestors_or_self(dag)
        self._cache: dict[tuple[int, tuple[int, ...]], bytearray] = {}
        self._cache_size = 100_000

    def is_separated(self, x: int, y: int, S: Sequence[int]) -> bool:
        """True iff x and y are d-separated given S in the DAG."""
        if x in S or y in S:
            raise ValueError("x and y must not be in the conditioning set")
        return not self.reachable(x, tuple(sorted(S)))[y]

    def reachable(self, x: int, S: tuple[int, ...]) -> bytearray:
        """Indicator (length d) of the nodes d-connected to x given S; cached per (x, S).

        One search answers the query for every y at once, which is what the PC loop needs:
        x is fixed while y runs over x's neighbours.
        """
        key = (x, S)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        d = len(self._parents)
        par, ch, anc_of = self._parents, self._children, self._ancestors
        Z = bytearray(d)
        for s in S:
            Z[s] = 1
        active = bytearray(d)  # colliders that are open: ancestors of S (incl. S)
        for s in S:
            for a in anc_of[s]:
                active[a] = 1
        up = bytearray(d)  # visited arriving from a child
        down = bytearray(d)  # visited arriving from a parent
        stack_up = [x]
        stack_down: list[int] = []
        while stack_up or stack_down:
            while stack_up:
                v = stack_up.pop()
                if up[v]:
                    continue
                up[v] = 1
                if Z[v]:
                    continue
                stack_up.extend(p for p in par[v] if not up[p])
                stack_down.extend(c for c in ch[v] if not down[c])
            while stack_down:
                v = stack_down.pop()
                if down[v]:
                    continue
                down[v] = 1
                if not Z[v]:
                    stack_down.extend(c for c in ch[v] if not down[c])
                if active[v]:
                    stack_up.extend(p for p in par[v] if not up[p])
        out = bytearray(a | b for a, b in zip(up, down))
        for s in S:
            out[s] = 0
        out[x] = 0
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
