"""Graph algorithms and the PC engine against independent oracles."""
import itertools

import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.graph import (DSeparation, cpdag_from_dag, edge_list, from_edge_list, is_dag,
                           meek_closure, topological_order, unshielded_triples)
from cgdcore.pc import OraclePolicy, PValuePolicy, pc
from conftest import Lazy

nx = Lazy("networkx")


def random_dag(d, p, rng):
    perm = rng.permutation(d)
    A = np.triu(rng.random((d, d)) < p, 1)
    return A[np.ix_(perm, perm)]


def brute_force_cpdag(dag):
    """CPDAG by enumerating the Markov equivalence class (same skeleton + v-structures)."""
    d = dag.shape[0]
    skel = dag | dag.T
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d) if skel[i, j]]

    def vstructs(A):
        return {(i, k, j) for i, k, j in unshielded_triples(A | A.T) if A[i, k] and A[j, k]}

    target = vstructs(dag)
    union = np.zeros_like(dag)
    for bits in itertools.product([0, 1], repeat=len(pairs)):
        A = np.zeros_like(dag)
        for (i, j), b in zip(pairs, bits):
            A[i, j] = b == 0
            A[j, i] = b == 1
        if is_dag(A) and vstructs(A) == target:
            union |= A
    return union


def test_dsep_matches_networkx():
    rng = np.random.default_rng(1)
    for _ in range(20):
        dag = random_dag(9, 0.3, rng)
        G = nx.DiGraph([(int(i), int(j)) for i, j in zip(*np.nonzero(dag))])
        G.add_nodes_from(range(9))
        ds = DSeparation(dag)
        for _ in range(40):
            x, y = rng.choice(9, 2, replace=False)
            rest = [v for v in range(9) if v not in (x, y)]
            S = tuple(rng.choice(rest, rng.integers(0, 4), replace=False).tolist())
            assert ds.is_separated(int(x), int(y), S) == nx.is_d_separator(G, {int(x)}, {int(y)}, set(S))


def test_bit_parallel_search_answers_as_the_one_set_search():
    """The oracle batch's 64-sets-at-once search (:func:`cgdcore.pc.kernels.connected_block`) gives, for every set
    of a block (a full block of 64 and a partial last one), exactly the one-set search's d-connected nodes."""
    from cgdcore.graph import topological_order
    from cgdcore.graph.kernels import reachable_kernel
    from cgdcore.pc.kernels import connected_block, subsets

    rng = np.random.default_rng(7)
    for d, p in ((12, 0.25), (12, 0.5), (14, 0.2)):
        for _ in range(6):
            dag = random_dag(d, p, rng)
            ds = DSeparation(dag)
            rtopo = np.array(topological_order(dag)[::-1], dtype=np.int64)
            x = int(rng.integers(d))
            others = np.array([v for v in range(d) if v != x], dtype=np.int64)
            for order in (1, 2, 3):
                combos = subsets(others, order)  # 11, 55, 165 sets (13, 78, 286 for d = 14)
                for start in range(0, len(combos), 64):
                    stop = min(len(combos), start + 64)
                    out = np.zeros(d, np.uint64)
                    connected_block(x, combos, start, stop, rtopo, ds._pptr, ds._pidx, ds._cptr, ds._cidx, out)
                    for j in range(stop - start):
                        one = reachable_kernel(x, combos[start + j], ds._pptr, ds._pidx, ds._cptr, ds._cidx)
                        bits = (out >> np.uint64(j)) & np.uint64(1)
                        assert np.array_equal(bits.astype(np.uint8), one), (d, x, combos[start + j])
                    assert not (out >> np.uint64(stop - start)).any() or stop - start == 64  # no bit past the block


def test_chickering_cpdag_equals_equivalence_class_union():
    rng = np.random.default_rng(2)
    for _ in range(40):
        dag = random_dag(6, 0.45, rng)
        assert np.array_equal(cpdag_from_dag(dag), brute_force_cpdag(dag))


@pytest.mark.parametrize("variant", ["stable", "original"])
@pytest.mark.parametrize("orientation", ["standard", "conservative", "majority"])
def test_pc_oracle_recovers_cpdag_on_random_dags(variant, orientation):
    rng = np.random.default_rng(3)
    for _ in range(15):
        dag = random_dag(10, 0.25, rng)
        res = pc(OraclePolicy(dag), [f"v{i}" for i in range(10)], variant=variant, orientation=orientation)
        assert np.array_equal(res.cpdag, cpdag_from_dag(dag))
        assert res.ambiguous_triples == ()
        assert sum(res.tests_per_order) == sum(r.phase == "skeleton" for r in res.trace)


def test_meek_rules_each_fire():
    # R1: 0 -> 1 - 2, 0 and 2 non-adjacent => 1 -> 2
    G = from_edge_list(3, [(0, 1, True), (1, 2, False)])
    assert edge_list(meek_closure(G)) == [(0, 1, True), (1, 2, True)]
    # R2: 0 -> 1 -> 2 and 0 - 2 => 0 -> 2
    G = from_edge_list(3, [(0, 1, True), (1, 2, True), (0, 2, False)])
    assert (0, 2, True) in edge_list(meek_closure(G))
    # R3: 0 - 1 -> 3, 0 - 2 -> 3, 0 - 3, 1 and 2 non-adjacent => 0 -> 3
    G = from_edge_list(4, [(0, 1, False), (0, 2, False), (1, 3, True), (2, 3, True), (0, 3, False)])
    assert (0, 3, True) in edge_list(meek_closure(G, rules="3"))
    # R4: 0 - 1 -> 2 -> 3, 0 - 3, 0 - 2, 1 and 3 non-adjacent => 0 -> 3
    G = from_edge_list(4, [(0, 1, False), (1, 2, True), (2, 3, True), (0, 3, False), (0, 2, False)])
    assert (0, 3, True) in edge_list(meek_closure(G, rules="4"))
    assert (0, 3, False) in edge_list(meek_closure(G, rules="1"))


def test_result_is_frozen_and_has_trace():
    dag = from_edge_list(3, [(0, 2, True), (1, 2, True)])
    res = pc(OraclePolicy(dag), ["a", "b", "c"])
    assert edge_list(res.cpdag) == [(0, 2, True), (1, 2, True)]
    assert res.sepsets == {(0, 1): ()}
    with pytest.raises(ValueError):
        res.cpdag[0, 0] = True
    with pytest.raises(Exception):
        res.seconds = 3.0
    assert res.tests_per_order[0] == 3


def test_max_order_limits_levels():
    rng = np.random.default_rng(5)
    dag = random_dag(10, 0.4, rng)
    res = pc(OraclePolicy(dag), list("abcdefghij"), max_order=1)
    assert max(r.order for r in res.trace if r.phase == "skeleton") <= 1
    assert len(res.tests_per_order) <= 2


def test_topological_order_and_cycle():
    dag = from_edge_list(3, [(2, 1, True), (1, 0, True)])
    assert topological_order(dag) == [2, 1, 0]
    with pytest.raises(ValueError):
        topological_order(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=bool))


def test_bad_engine_params():
    dag = from_edge_list(3, [(0, 2, True)])
    with pytest.raises(UserError, match="variant"):
        pc(OraclePolicy(dag), "abc", variant="fast")
    with pytest.raises(UserError, match="orientation"):
        pc(OraclePolicy(dag), "abc", orientation="max-p")
    with pytest.raises(UserError, match="maximum order"):
        pc(OraclePolicy(dag), "abc", max_order=-1)
    with pytest.raises(UserError, match="alpha"):
        PValuePolicy(lambda *a: None, alpha=1.5)


def test_priority_rule_skips_a_collider_that_would_reverse_an_arrow():
    """causal-learn's uc_priority=2: 0 -> 1 <- 2 is set first; the later collider 1 -> 2 <- 3 would reverse
    2 -> 1, so it is skipped whole (2 - 3 stays undirected); "standard" applies its other half (3 -> 2)."""
    from cgdcore.pc import orient

    skel = np.zeros((4, 4), dtype=bool)
    for a, b in [(0, 1), (1, 2), (2, 3)]:
        skel[a, b] = skel[b, a] = True
    sepsets = {(0, 2): (), (1, 3): (), (0, 3): ()}
    g, amb, conf = orient(skel, sepsets, rule="priority")
    assert conf == 1 and amb == ()
    assert g[0, 1] and not g[1, 0] and g[2, 1] and not g[1, 2]
    assert g[2, 3] and g[3, 2]
    g, _, conf = orient(skel, sepsets, rule="standard")
    assert conf == 1 and g[3, 2] and not g[2, 3]


# Andes is left to tests/statistical/test_discovery.py, which searches its oracle skeleton (~2.6·10^8 queries)
# once and orients it with both rules.
@pytest.mark.parametrize("net", ["earthquake", "cancer", "asia", "survey", "sachs", "child", "insurance", "alarm",
                                 "water", "hailfinder", "hepar2", "win95pts"])
def test_priority_rule_recovers_true_cpdag_with_oracle(net):
    from cgdcore.data import load_dataset
    from cgdcore.data.registry import NETWORKS
    from cgdcore.pc import orient

    assert net in NETWORKS
    ds = load_dataset(net, n=10, seed=0)
    res = pc(OraclePolicy(ds.truth), ds.variables, record_trace=False, orientation="priority")
    assert np.array_equal(res.cpdag, cpdag_from_dag(ds.truth))
    assert res.orientation_conflicts == 0
    std, _, _ = orient(res.skeleton, res.sepsets, rule="standard")
    assert np.array_equal(std, res.cpdag)
