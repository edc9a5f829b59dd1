"""The "union" collider rule (causal-learn's stable PC) and the default rule per algorithm."""
from __future__ import annotations

import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.data import load_dataset
from cgdcore.data.registry import NETWORKS
from cgdcore.discover import default_orientation, discover
from cgdcore.metrics import shd_cpdag
from cgdcore.pc import OraclePolicy, max_ci_queries, pc


@pytest.mark.parametrize("net", [n for n in NETWORKS if n != "andes"])
def test_union_rule_recovers_the_true_cpdag_with_the_oracle(net):
    ds = load_dataset(net, n=10, seed=0)
    res = pc(OraclePolicy(ds.truth), ds.variables, orientation="union", record_trace=False)
    assert shd_cpdag(res.cpdag, ds.truth) == 0
    assert res.orientation_conflicts == 0


def test_union_retests_only_the_sets_of_the_removal_depth():
    ds = load_dataset("child", n=20_000, seed=1)
    res = discover(ds, ci_test="g2", alpha=0.01, orientation="union").result
    skel = [t for t in res.trace if t.phase == "skeleton"]
    extra = [t for t in res.trace if t.phase == "orientation"]
    assert extra and res.n_ci_tests == len(skel) + len(extra)
    for t in extra:
        key = (min(t.x, t.y), max(t.x, t.y))
        assert key in res.sepsets and len(t.S) == len(res.sepsets[key])
        assert not res.skeleton[t.x, t.y]
    # the skeleton and its first separating sets are those of the standard rule
    std = discover(ds, ci_test="g2", alpha=0.01, orientation="standard").result
    assert np.array_equal(std.skeleton, res.skeleton) and std.sepsets == res.sepsets
    assert [(t.x, t.y, t.S) for t in std.trace] == [(t.x, t.y, t.S) for t in skel]


def test_union_calls_fewer_colliders_than_standard_where_a_set_disagrees():
    """A triple i - k - j whose first separating set leaves k out but another set of that size holds k is a
    collider for "standard" and not for "union"; every union collider is a standard collider."""
    ds = load_dataset("child", n=100_000, seed=0)
    std = discover(ds, ci_test="g2", alpha=0.01, orientation="standard").result
    uni = discover(ds, ci_test="g2", alpha=0.01, orientation="union").result
    arrows = lambda g: {(a, b) for a, b in zip(*np.nonzero(g & ~g.T))}  # noqa: E731
    assert shd_cpdag(uni.cpdag, ds.truth) == 0 < shd_cpdag(std.cpdag, ds.truth)
    assert arrows(uni.cpdag) != arrows(std.cpdag)


def test_default_rule_per_algorithm():
    assert default_orientation("pc") == "union"
    assert default_orientation("pc", "original") == "standard"
    assert default_orientation("pc", ldp={"mechanism": "krr-cwise", "epsilon": 2.0}) == "standard"
    for algo in ("laplace-pc", "gauss-pc", "svt-pc", "priv-pc", "em-pc", "curate"):
        assert default_orientation(algo) == "standard"
    ds = load_dataset("asia", n=2000, seed=0)
    assert discover(ds, ci_test="g2").result.params["orientation"] == "union"
    assert discover(ds, ci_test="g2", variant="original").result.params["orientation"] == "standard"
    priv = discover(ds, algo="priv-pc", round_epsilon=1.0, seed=0).result
    assert priv.params["orientation"] == "standard"
    assert all(t.phase == "skeleton" for t in priv.trace)  # no re-test: nothing released beyond the skeleton


def test_union_needs_the_stable_skeleton_and_is_budgeted_like_conservative():
    ds = load_dataset("asia", n=2000, seed=0)
    with pytest.raises(UserError, match="stable"):
        discover(ds, ci_test="g2", variant="original", orientation="union")
    assert max_ci_queries(8, None, "union") == max_ci_queries(8, None, "conservative") > max_ci_queries(8, None)
