"""Orientation of a learned skeleton: v-structures by the standard, priority, conservative (Ramsey, Zhang &
Spirtes 2006), majority (Colombo & Maathuis 2014) or union (causal-learn's stable PC) rule, then Meek's
rules R1–R4 (Meek 1995)."""
from __future__ import annotations

import itertools
from typing import Mapping, Sequence

import numpy as np

from cgdcore.cancel import checkpoint
from cgdcore.graph import meek_closure, unshielded_triples
from cgdcore.pc.policy import CIPolicy, TestRecord

ORIENTATION_RULES = ("standard", "priority", "conservative", "majority", "union")


def _all_sepsets(policy, trace, i, j, k_skel, original):
    """Every subset of adj(i)\\{j} and of adj(j)\\{i} that separates i and j (pcalg pc.cons.intern)."""
    found = {tuple(original)} if original is not None else set()
    for a, b in ((i, j), (j, i)):
        nbrs = [int(k) for k in np.flatnonzero(k_skel[a]) if k != b]
        for size in range(len(nbrs) + 1):
            for S in itertools.combinations(nbrs, size):
                if S in found:
                    continue
                if policy.exhausted:
                    return found
                checkpoint()
                dec = policy.decide(i, j, S, size)
                trace.append(TestRecord.of(i, j, S, size, dec, "orientation"))
                if dec.independent:
                    found.add(S)
    return found


def _depth_sepsets(policy, trace, i, j, original, level):
    """Every separating set of i and j of the size of ``original`` drawn from adj(i)\\{j} or adj(j)\\{i} as they
    were at the start of that level (``level``): what causal-learn's stable skeleton search collects at the depth
    where it removes the edge (``SkeletonDiscovery.skeleton_discovery``, stable=True: every set of the depth is
    tested from both sides; ``uc_sepset`` then reads their union)."""
    found = {tuple(original)}
    size = len(original)
    for a, b in ((i, j), (j, i)):
        for S in itertools.combinations([k for k in level[a] if k != b], size):
            if S in found:
                continue
            if policy.exhausted:
                return found
            dec = policy.decide(i, j, S, size)
            trace.append(TestRecord.of(i, j, S, size, dec, "orientation"))
            if dec.independent:
                found.add(S)
    return found


def orient(
    skel: np.ndarray,
    sepsets: Mapping[tuple[int, int], tuple[int, ...]],
    *,
    rule: str = "standard",
    policy: CIPolicy | None = None,
    trace: list | None = None,
    levels: Sequence | None = None,
):
    """Phase 2 of PC: v-structures, then Meek's rules R1–R4.

    ``rule="standard"``: i -> k <- j iff k is not in sepset(i, j).
    ``"priority"``: the same colliders, applied with priority to existing colliders (causal-learn's
    ``uc_sepset(priority=2)``, the default orientation of its ``pc(uc_rule=0, uc_priority=2)``): in the
    lexicographic order of (i, j, k), a collider i -> k <- j is oriented — both arrows, overwriting an
    undirected edge — only if neither k -> i nor k -> j is already oriented; otherwise it is skipped
    whole (counted as a conflict) rather than half-applied as under "standard".
    ``"conservative"`` (Ramsey et al. 2006): collect every separating subset of the
    neighbours; collider iff k is in none, non-collider iff in all, else ambiguous.
    ``"majority"`` (Colombo & Maathuis 2014): collider iff k is in fewer than half of them,
    ambiguous at exactly half. Ambiguous triples stay unoriented and block Meek rules.
    ``"union"`` (causal-learn's stable PC, ``pc(stable=True, uc_rule=0, uc_priority=2)``): collider iff k is in
    none of the separating sets of i and j of the size at which the edge was removed, drawn from either
    endpoint's adjacency at the start of that level (``levels``, from :func:`skeleton_search`), then applied with
    priority to existing colliders as under ``"priority"``. It re-tests only the sets of that one size.
    Conflicting v-structures: the first (lexicographic) orientation wins; conflicts are counted.
    Returns (cpdag, ambiguous_triples, n_conflicts).
    """
    skel = np.asarray(skel, dtype=bool)
    G = skel.copy()
    ambiguous: list[tuple[int, int, int]] = []
    colliders: list[tuple[int, int, int]] = []
    for i, k, j in unshielded_triples(skel):
        S = sepsets.get((min(i, j), max(i, j)))
        if rule in ("standard", "priority"):
            if S is not None and k not in S:
                colliders.append((i, k, j))
            continue
        if policy is None:
            raise ValueError("conservative/majority/union orientation needs the CI policy")
        if rule == "union":
            if levels is None:
                raise ValueError("union orientation needs the adjacency of each skeleton level")
            if S is not None and k not in S and all(
                    k not in T for T in _depth_sepsets(policy, trace if trace is not None else [], i, j, S,
                                                       levels[len(S)])):
                colliders.append((i, k, j))
            continue
        sets = _all_sepsets(policy, trace if trace is not None else [], i, j, skel, S)
        if not sets:
            ambiguous.append((i, k, j))
            continue
        share = sum(k in s for s in sets) / len(sets)
        if rule == "conservative":
            if share == 0.0:
                colliders.append((i, k, j))
            elif share < 1.0:
                ambiguous.append((i, k, j))
        else:
            if share < 0.5:
                colliders.append((i, k, j))
            elif share == 0.5:
                ambiguous.append((i, k, j))
    conflicts = 0
    if rule in ("priority", "union"):
        for i, k, j in colliders:
            if (G[k, i] and not G[i, k]) or (G[k, j] and not G[j, k]):
                conflicts += 1  # an arrow out of k is already fixed by an earlier collider: keep it
                continue
            for a in (i, j):
                G[a, k] = True
                G[k, a] = False
        colliders = []
    for i, k, j in colliders:
        for a in (i, j):
            if G[a, k] and G[k, a]:
                G[k, a] = False
            elif not G[a, k]:
                conflicts += 1  # k -> a already fixed by an earlier v-structure
    G = meek_closure(G, protected=ambiguous)
    return G, tuple(ambiguous), conflicts
