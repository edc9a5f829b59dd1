"""The skeleton search: pcalg's ``skeleton()`` loop (ordered pairs and conditioning sets in lexicographic
order, first separating set kept; the "stable" variant of Colombo & Maathuis 2014), with a policy's
edge-wise, node-wise or batched strategies and a budget's stop signal."""
from __future__ import annotations

import itertools
import math

import numpy as np

from cgdcore.cancel import checkpoint
from cgdcore.pc.policy import CIPolicy, Policy, TestRecord

SKELETON_VARIANTS = ("stable", "original")


def max_ci_queries(d: int, max_order: int | None, orientation: str = "standard") -> int:
    """A data-independent upper bound on the CI queries one PC run can ask: every ordered pair with every
    conditioning set of size ≤ max_order from the other d − 2 variables, plus, for the conservative, majority
    and union rules, every subset of both neighbourhoods for every unshielded triple. A private run
    without a budget states its guarantee at this many releases."""
    top = d - 2 if max_order is None else min(int(max_order), d - 2)
    skeleton = d * (d - 1) * sum(math.comb(d - 2, k) for k in range(max(top, 0) + 1))
    if orientation in ("standard", "priority"):
        return skeleton
    return skeleton + math.comb(d, 2) * (d - 2) * 2 ** (d - 1)


def skeleton_search(
    d: int,
    policy: CIPolicy,
    *,
    variant: str = "stable",
    max_order: int | None = None,
    skip_repeated: bool = True,
    record_trace: bool = True,
    progress=None,
    levels: list | None = None,
):
    """Phase 1 of PC: remove edges between conditionally independent pairs.

    Returns (adjacency, sepsets, trace, tests_per_order, stopped_early, stop_reason).
    ``variant="stable"`` freezes adjacency sets at the start of each level (Colombo &
    Maathuis 2014, Alg. 4.1); ``"original"`` reads the current graph (order-dependent).
    ``skip_repeated``: when the pair {x, y} is tested again from y's side, sets that were
    already asked from x's side are skipped — the answer adds nothing for a deterministic
    test and costs budget for a private one. ``record_trace=False`` keeps only the counts
    (for very large oracle runs). ``progress(order, n_edges)`` is called at each level. ``levels``, if given,
    receives the adjacency sets at the start of each level (the "union" orientation rule reads them).
    """
    nbrs = [set(range(d)) - {v} for v in range(d)]  # current adjacency
    sepsets: dict[tuple[int, int], tuple[int, ...]] = {}
    trace: list[TestRecord] = []
    per_order: list[int] = []
    if not isinstance(policy, Policy):
        raise TypeError(f"{type(policy).__name__} is not a cgdcore.pc.Policy")
    begin = policy.begin_order
    budgeted = True
    decide = policy.decide
    node_wise = policy.decide_node if policy.strategy == "node" else None
    edge_wise = policy.decide_edge if policy.strategy == "edge" else None
    # a deterministic policy may answer a whole (x, y) at once; only used without a trace
    batch = policy.first_separating if not record_trace else None
    order = 0
    stopped, reason = False, None
    while max_order is None or order <= max_order:
        if not any(len(nbrs[x]) - 1 >= order for x in range(d) if nbrs[x]):
            break
        n_edges = sum(len(a) for a in nbrs) // 2
        if levels is not None:
            levels.append([tuple(sorted(a)) for a in nbrs])
        if progress is not None:
            progress(order, n_edges)
        if begin is not None:
            begin(order, [frozenset(a) for a in nbrs])
            if budgeted and policy.exhausted:
                stopped = True
                reason = policy.why_stopped()
                per_order.append(0)
                break
        if node_wise is not None:
            count, stopped, reason = _node_wise_level(d, policy, node_wise, nbrs, sepsets, trace, order,
                                                      variant, record_trace, budgeted)
            per_order.append(count)
            if stopped:
                break
            order += 1
            continue
        if edge_wise is not None:
            count, stopped, reason = _edge_wise_level(d, policy, edge_wise, nbrs, sepsets, trace, order, variant,
                                                      record_trace, budgeted)
            per_order.append(count)
            if stopped:
                break
            order += 1
            continue
        frozen = [sorted(a) for a in nbrs] if variant == "stable" else None
        asked_from: dict[tuple[int, int], frozenset[int]] = {}
        count = 0
        if batch is not None and frozen is not None:
            count = _batched_level(d, batch, frozen, nbrs, sepsets, order, asked_from, skip_repeated)
            per_order.append(count)
            order += 1
            continue
        for x in range(d):
            for y in (frozen[x] if frozen is not None else sorted(nbrs[x])):
                if y not in nbrs[x]:
                    continue
                if order:  # (at order 0 the one set is the empty one: no list of x's other neighbours)
                    cand = [k for k in (frozen[x] if frozen is not None else sorted(nbrs[x])) if k != y]
                    if len(cand) < order:
                        continue
                else:
                    cand = ()
                seen = asked_from.pop((y, x), None) if skip_repeated else None
                for S in itertools.combinations(cand, order):
                    if seen is not None and seen.issuperset(S):
                        continue
                    if budgeted and policy.exhausted:
                        stopped = True
                        reason = policy.why_stopped()
                        break
                    checkpoint()
                    dec = decide(x, y, S, order)
                    if budgeted and policy.exhausted:  # the policy refused: nothing was asked
                        stopped = True
                        reason = policy.why_stopped()
                        break
                    count += 1
                    if record_trace:
                        trace.append(TestRecord.of(x, y, S, order, dec, "skeleton"))
                    if dec.independent:
                        nbrs[x].discard(y)
                        nbrs[y].discard(x)
                        sepsets[(min(x, y), max(x, y))] = S
                        break
                else:
                    if skip_repeated and x < y:
                        asked_from[(x, y)] = frozenset(cand)
                if stopped:
                    break
            if stopped:
                break
        per_order.append(count)
        if stopped:
            break
        order += 1
    adj = np.zeros((d, d), dtype=bool)
    for x in range(d):
        adj[x, list(nbrs[x])] = True
    return adj, sepsets, trace, per_order, stopped, reason


def _batched_level(d, first_separating, frozen, nbrs, sepsets, order, asked_from, skip_repeated):
    """One stable skeleton level through ``policy.first_separating`` (same decisions and counts
    as the query-by-query loop)."""
    count = 0
    for x in range(d):
        for y in frozen[x]:
            if y not in nbrs[x]:
                continue
            if len(frozen[x]) - 1 < order:
                continue
            seen = asked_from.pop((y, x), None) if skip_repeated else None
            checkpoint()
            S, asked = first_separating(x, frozen[x], y, order, seen)
            count += asked
            if S is not None:
                nbrs[x].discard(y)
                nbrs[y].discard(x)
                sepsets[(min(x, y), max(x, y))] = S
            elif skip_repeated and x < y:
                asked_from[(x, y)] = frozenset(k for k in frozen[x] if k != y)
    return count


def _node_wise_level(d, policy, decide_node, nbrs, sepsets, trace, order, variant, record_trace, budgeted):
    """One skeleton level for a policy that decides per node (EM-PC, Xu et al. 2017)."""
    frozen = [sorted(a) for a in nbrs] if variant == "stable" else None
    count = 0
    for x in range(d):
        adj_x = frozen[x] if frozen is not None else sorted(nbrs[x])
        if len(adj_x) < order + 1:
            continue
        if budgeted and policy.exhausted:
            return count, True, policy.why_stopped()
        checkpoint()
        cands = [(y, list(itertools.combinations([k for k in adj_x if k != y], order))) for y in adj_x]
        deletions, records = decide_node(x, order, cands)
        count += len(records)
        if record_trace:
            trace.extend(records)
        for y, S in deletions:
            nbrs[x].discard(y)
            nbrs[y].discard(x)
            sepsets[(min(x, y), max(x, y))] = tuple(S)
    return count, False, None


def _edge_wise_level(d, policy, decide_edge, nbrs, sepsets, trace, order, variant, record_trace, budgeted):
    """One skeleton level for a policy that decides per edge from all its candidate sets (Gauss-PC): each
    pair {x, y} with x < y is asked once, with the order-sized subsets of adj(x)\\{y} and then of adj(y)\\{x}."""
    frozen = [sorted(a) for a in nbrs] if variant == "stable" else None
    count = 0
    for x in range(d):
        for y in (frozen[x] if frozen is not None else sorted(nbrs[x])):
            if y <= x or y not in nbrs[x]:
                continue
            sets: dict[tuple[int, ...], None] = {}
            for a, b in ((x, y), (y, x)):
                cand = [k for k in (frozen[a] if frozen is not None else sorted(nbrs[a])) if k != b]
                sets.update(dict.fromkeys(itertools.combinations(cand, order)))
            if not sets:
                continue
            why = policy.why_stopped()
            if budgeted and policy.exhausted:
                return count, True, why
            checkpoint()
            dec, S = decide_edge(x, y, list(sets), order)
            if budgeted and policy.exhausted:  # the policy refused: nothing was asked
                return count, True, policy.stop_reason or why
            count += 1
            if record_trace:
                trace.append(TestRecord.of(x, y, tuple(S or ()), order, dec, "skeleton"))
            if dec.independent:
                nbrs[x].discard(y)
                nbrs[y].discard(x)
                sepsets[(x, y)] = tuple(S)
    return count, False, None
