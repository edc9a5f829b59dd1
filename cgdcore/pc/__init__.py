"""The one PC engine: skeleton search and orientation, with a pluggable CI-decision policy.

Spirtes, Glymour & Scheines (2000) PC; the "stable" skeleton of Colombo & Maathuis
(2014); conservative orientation of Ramsey, Zhang & Spirtes (2006); majority rule of
Colombo & Maathuis (2014); the "union" rule of causal-learn's stable PC (every separating set at the removal
depth); Meek (1995) rules R1–R4. The loop follows pcalg's
``skeleton()``: ordered pairs in lexicographic order, conditioning sets drawn from
adj(x) \\ {y} in lexicographic order, first separating set kept.

Every decision "x ⟂ y | S ?" is delegated to a *policy* object (see :class:`CIPolicy`).
Private variants (Laplace, SVT, sieve-and-examine, CURATE ...) are policies; the loop
is never copied.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np

from cgdcore import UserError
from cgdcore.cancel import checkpoint
from cgdcore.graph import DSeparation, meek_closure, unshielded_triples

SKELETON_VARIANTS = ("stable", "original")
ORIENTATION_RULES = ("standard", "priority", "conservative", "majority", "union")


class Decision(NamedTuple):
    """A policy's answer to one CI query.

    Private policies also say what they released: the exact value the noise was added to
    (``released``, on its own scale) and its sensitivity as charged, the noise drawn, the noisy
    value that was compared, the threshold it was compared with, the ε charged by this query
    and the stage ("laplace", "sieve", "examine", "svt", "curate" ...). ``p_value`` is the
    non-private p-value on the full data, so a trace can show which decisions the noise flipped.
    """

    independent: bool
    statistic: float
    p_value: float
    noise: float = float("nan")
    noisy: float = float("nan")
    threshold: float = float("nan")
    epsilon: float = 0.0
    stage: str = ""
    released: float = float("nan")
    sensitivity: float = float("nan")


class TestRecord(NamedTuple):
    """One row of the per-test trace."""

    x: int
    y: int
    S: tuple[int, ...]
    order: int
    statistic: float
    p_value: float
    independent: bool
    phase: str  # "skeleton" or "orientation"
    noise: float = float("nan")
    noisy: float = float("nan")
    threshold: float = float("nan")
    epsilon: float = 0.0
    stage: str = ""
    released: float = float("nan")
    sensitivity: float = float("nan")

    @classmethod
    def of(cls, x: int, y: int, S: tuple[int, ...], order: int, dec: Decision, phase: str) -> "TestRecord":
        return cls(x, y, S, order, dec.statistic, dec.p_value, dec.independent, phase,
                   dec.noise, dec.noisy, dec.threshold, dec.epsilon, dec.stage, dec.released, dec.sensitivity)


class Policy:
    """What the PC engine asks of a CI-decision policy, every hook declared (pcalg's idea: the skeleton search is
    fixed, the test is passed in; private variants change the policy, never the loop).

    ``strategy`` says how the engine asks its questions: ``"test"`` — one query at a time through
    :meth:`decide`; ``"edge"`` — one release per edge and level through :meth:`decide_edge` (Gauss-PC);
    ``"node"`` — a whole node at a time through :meth:`decide_node` (EM-PC's exponential mechanism).
    The one stop signal is ``exhausted`` (with ``stop_reason``): set it when no further query can be answered — a
    spent budget — and the engine stops and keeps the remaining edges; a refused query is not counted.
    :meth:`begin_order` runs before each level with the current adjacency sets (post-processing of earlier
    decisions). Two optional answers serve deterministic policies: ``first_separating`` (a whole (x, y) at once,
    used without a trace) and ``best_sepset`` (a preferred separating set after the search).
    """

    strategy = "test"
    exhausted = False
    stop_reason: str | None = None
    #: optional ``first_separating(x, adj_x, y, order, seen) -> (S | None, n_asked)``: the batched path
    first_separating = None
    #: optional ``best_sepset(i, j, first) -> S``: the separating set kept for (i, j)
    best_sepset = None

    def begin_order(self, order: int, adjacency) -> None:
        """Called before each skeleton level with the current adjacency sets."""

    def decide(self, x: int, y: int, S: tuple[int, ...], order: int) -> Decision:
        raise NotImplementedError(f"{type(self).__name__} answers by strategy {self.strategy!r}, not decide()")

    def decide_edge(self, x: int, y: int, sets, order: int):
        """``(decision, S)`` for edge x–y from every candidate separating set of the level (adj(x)\\{y} first)."""
        raise NotImplementedError

    def decide_node(self, x: int, order: int, candidates):
        """``(deletions, records)`` for node x from ``[(y, [S, ...]), ...]``: deletions ``[(y, S), ...]``."""
        raise NotImplementedError

    def why_stopped(self) -> str:
        return self.stop_reason or "the policy could answer no more queries"


#: kept for type hints written against the protocol name
CIPolicy = Policy


class PValuePolicy(Policy):
    """Non-private decision: independent iff p-value ≥ α (pcalg's convention)."""

    def __init__(self, ci_test, alpha: float = 0.05):
        if not (0.0 < float(alpha) < 1.0):
            raise UserError(f"alpha must be strictly between 0 and 1 (got {alpha}).")
        self.ci_test = ci_test
        self.alpha = float(alpha)

    def decide(self, x, y, S, order):
        r = self.ci_test(x, y, S)
        return Decision(bool(r.p_value >= self.alpha), float(r.statistic), float(r.p_value))


class OraclePolicy(Policy):
    """Perfect CI decisions: d-separation in a known DAG (statistic/p are 1 or 0).

    Besides ``decide`` it offers ``first_separating`` for the engine's batched path (stable
    skeleton without a trace): for a fixed x and order, the reachable set of each candidate S is
    computed in compiled code the first time a neighbour y needs it and reused for the others. A y
    adjacent to x in the DAG is d-connected to x given every S (the edge is an active trail), so
    for it only the sets asked are counted.
    """

    _INDEPENDENT = Decision(True, 1.0, 1.0)
    _DEPENDENT = Decision(False, 0.0, 0.0)

    def __init__(self, dag: np.ndarray):
        self.dsep = DSeparation(dag)
        self._adjacent = self.dsep.dag | self.dsep.dag.T
        self._batch_key = None
        self._batch = None

    def decide(self, x, y, S, order):
        return self._DEPENDENT if self.dsep.reachable(x, S)[y] else self._INDEPENDENT

    def first_separating(self, x, adj_x, y, order, seen):
        """(S, n_asked): the first S ⊆ adj_x \\ {y} of size ``order`` (lexicographic) not inside
        ``seen`` that separates x and y, or None — exactly what the engine's loop would find."""
        from .kernels import first_separating, subsets

        key = (x, order, tuple(adj_x))
        ds = self.dsep
        if key != self._batch_key:
            combos = subsets(np.asarray(adj_x, dtype=np.int64), order)
            d = len(ds._pptr) - 1
            self._batch = combos, np.empty((len(combos), d), np.uint8), np.zeros(len(combos), np.uint8)
            self._batch_key = key
            self._mask = np.zeros(d, dtype=np.uint8)
        combos, reach, have = self._batch
        mask = self._mask
        mask[:] = 0
        if seen is not None:
            mask[list(seen)] = 1
        r, asked = first_separating(x, combos, reach, have, y, mask, seen is not None, bool(self._adjacent[x, y]),
                                    ds._pptr, ds._pidx, ds._cptr, ds._cidx)
        return (None if r < 0 else tuple(int(v) for v in combos[r])), int(asked)


@dataclass(frozen=True, eq=False)
class Result:
    """What one PC run produced. Frozen; arrays are read-only.

    cpdag: (d, d) bool, ``cpdag[i, j] and not cpdag[j, i]`` is i -> j, both is i - j.
    sepsets: {(i, j): S} for i < j, the separating set that removed the edge.
    trace: every CI query in the order it was asked.
    tests_per_order: number of skeleton CI queries at each conditioning-set size.
    """

    variables: tuple[str, ...]
    cpdag: np.ndarray
    skeleton: np.ndarray
    sepsets: Mapping[tuple[int, int], tuple[int, ...]]
    trace: tuple[TestRecord, ...]
    tests_per_order: tuple[int, ...]
    seconds: float
    params: Mapping[str, Any]
    stopped_early: bool = False
    stop_reason: str | None = None
    ambiguous_triples: tuple[tuple[int, int, int], ...] = ()
    orientation_conflicts: int = 0
    extras: Mapping[str, Any] = field(default_factory=dict)

    n_ci_tests: int = 0


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


def _check_params(d, variant, orientation, max_order):
    if variant not in SKELETON_VARIANTS:
        raise UserError(f"unknown skeleton variant {variant!r}; choose one of {', '.join(SKELETON_VARIANTS)}.")
    if orientation not in ORIENTATION_RULES:
        raise UserError(
            f"unknown orientation rule {orientation!r}; choose one of {', '.join(ORIENTATION_RULES)}."
        )
    if orientation == "union" and variant != "stable":
        raise UserError("the union collider rule reads the separating sets of the stable skeleton search; "
                        "use --variant stable or another collider rule.")
    if max_order is not None:
        if int(max_order) != max_order or max_order < 0:
            raise UserError(f"maximum order must be a whole number ≥ 0 (got {max_order}).")
    if d < 2:
        raise UserError("causal discovery needs at least two variables.")


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
                cand = [k for k in (frozen[x] if frozen is not None else sorted(nbrs[x])) if k != y]
                if len(cand) < order:
                    continue
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


def pc(
    policy: CIPolicy,
    variables: Sequence[str],
    *,
    variant: str = "stable",
    orientation: str = "standard",
    max_order: int | None = None,
    skip_repeated: bool = True,
    record_trace: bool = True,
    progress=None,
    params: Mapping[str, Any] | None = None,
) -> Result:
    """Run PC with the given CI-decision policy and return a frozen :class:`Result`."""
    variables = tuple(str(v) for v in variables)
    d = len(variables)
    _check_params(d, variant, orientation, max_order)
    t0 = time.perf_counter()
    levels = [] if orientation == "union" else None
    adj, sepsets, trace, per_order, stopped, reason = skeleton_search(
        d, policy, variant=variant, max_order=max_order, skip_repeated=skip_repeated,
        record_trace=record_trace, progress=progress, levels=levels,
    )
    best = policy.best_sepset  # a batched policy may prefer another separating set
    if best is not None:
        sepsets = {k: tuple(best(k[0], k[1], S)) for k, S in sepsets.items()}
    n_orient_before = len(trace)
    cpdag, ambiguous, conflicts = orient(adj, sepsets, rule=orientation, policy=policy, trace=trace, levels=levels)
    seconds = time.perf_counter() - t0
    for arr in (cpdag, adj):
        arr.setflags(write=False)
    all_params = {"variant": variant, "orientation": orientation, "max_order": max_order}
    all_params.update(params or {})
    return Result(
        variables=variables,
        cpdag=cpdag,
        skeleton=adj,
        sepsets=dict(sepsets),
        trace=tuple(trace),
        tests_per_order=tuple(per_order),
        seconds=seconds,
        params=all_params,
        stopped_early=stopped,
        stop_reason=reason,
        ambiguous_triples=ambiguous,
        orientation_conflicts=conflicts,
        n_ci_tests=sum(per_order) + len(trace) - n_orient_before,
    )
