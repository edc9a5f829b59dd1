"""Tests for cgdcore.data: BIF parser and sampler, linear SEMs, CSV loading, the dataset registry."""
from __future__ import annotations

import gzip
import io
import itertools

import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.data import (
    check_discrete_usable, discretise, exact_joint, exact_marginals, list_datasets, load_csv,
    load_dataset, load_network, parse_bif, parse_spec, random_dag, random_weights, read_bif, sample,
    simulate_linear_sem,
)
from cgdcore.data.registry import ASSETS, NETWORKS, find_cycle

# nodes / arcs of the shipped networks (shared research notes, datasets.md §3)
NETWORK_SIZES = {
    "earthquake": (5, 4), "cancer": (5, 4), "asia": (8, 8), "survey": (6, 6), "sachs": (11, 17),
    "child": (20, 25), "insurance": (27, 52), "alarm": (37, 46), "water": (32, 66),
    "hailfinder": (56, 66), "hepar2": (70, 123), "win95pts": (76, 112), "andes": (223, 338),
}


# ----------------------------------------------------------------------------- BIF parser

@pytest.mark.parametrize("name", sorted(NETWORK_SIZES))
def test_parse_shipped_networks(name):
    bn = load_network(name)
    nodes, arcs = NETWORK_SIZES[name]
    assert (bn.d, bn.n_arcs, int(bn.adjacency().sum())) == (nodes, arcs, arcs)
    for v in range(bn.d):
        cpt = bn.cpts[v]
        assert cpt.shape == (int(np.prod([bn.cards[p] for p in bn.parents[v]])), bn.cards[v])
        np.testing.assert_allclose(cpt.sum(axis=1), 1.0, atol=1e-6)
        assert (cpt >= 0).all()
    pos = {v: i for i, v in enumerate(bn.topological_order)}
    assert sorted(pos) == list(range(bn.d))
    assert all(pos[p] < pos[v] for v in range(bn.d) for p in bn.parents[v])


def test_network_table_matches_assets():
    assert set(NETWORKS) == set(NETWORK_SIZES)
    assert {p.name.split(".")[0] for p in (ASSETS / "networks").glob("*.bif.gz")} == set(NETWORK_SIZES)


def test_child_state_names_with_symbols():
    bn = load_network("child")
    assert "Asy/Patch" in bn.states[bn.index("ChestXray")]
    assert bn.states[bn.index("LowerBodyO2")] == ("<5", "5-12", "12+")
    assert bn.states[bn.index("CO2Report")] == ("<7.5", ">=7.5")


def test_sachs_bif_row_order_is_by_state_names():
    # sachs.bif lists rows as (LOW, LOW), (AVG, LOW), ...: the FIRST parent varies fastest in the
    # file, while our CPT rows are row-major (LAST parent fastest). Check one row by hand.
    bn = load_network("sachs")
    akt = bn.index("Akt")
    assert [bn.variables[p] for p in bn.parents[akt]] == ["Erk", "PKA"]
    # (Erk=HIGH, PKA=LOW) 7.682262e-05, 1.183068e-01, 8.816163e-01 -> row 2*3 + 0
    np.testing.assert_allclose(bn.cpts[akt][6], [7.682262e-05, 1.183068e-01, 8.816163e-01], rtol=1e-6)


SMALL_BIF = """// a hand-made network
network test { property "made by hand" ; }
/* block
   comment */
variable A { type discrete [ 2 ] { a<0, a>=0 }; property "x=1"; }
variable B {
  type discrete [ 3 ] { lo/1, mid.2, hi+3 };
}
probability ( A ) { table 0.3, 0.7; }
probability ( B | A ) {
  (a>=0) 0.1, 0.2, 0.7;
  default 0.5, 0.25, 0.25;   // used for A = a<0
}
"""


def test_parse_dialect_features_and_exact_marginals():
    bn = parse_bif(SMALL_BIF, name="test")
    assert bn.variables == ("A", "B")
    assert bn.states == (("a<0", "a>=0"), ("lo/1", "mid.2", "hi+3"))
    assert bn.parents == ((), (0,))
    np.testing.assert_allclose(bn.cpts[1], [[0.5, 0.25, 0.25], [0.1, 0.2, 0.7]])
    m = exact_marginals(bn)
    np.testing.assert_allclose(m[1], 0.3 * np.array([0.5, 0.25, 0.25]) + 0.7 * np.array([0.1, 0.2, 0.7]))
    np.testing.assert_allclose(exact_joint(bn).sum(), 1.0)
    assert bn.adjacency().tolist() == [[False, True], [False, False]]


def test_read_plain_and_gzipped(tmp_path):
    text = gzip.decompress((ASSETS / "networks" / "asia.bif.gz").read_bytes())
    (tmp_path / "asia.bif").write_bytes(text)
    a, b = read_bif(tmp_path / "asia.bif"), load_network("asia")
    assert a.variables == b.variables and a.parents == b.parents
    assert all(np.array_equal(x, y) for x, y in zip(a.cpts, b.cpts))


@pytest.mark.parametrize("text, line, words", [
    ("variable A { type discrete [ 3 ] { x, y }; }\nprobability ( A ) { table 0.5, 0.5; }",
     1, "declares 3 states"),
    ("variable A { type discrete [ 2 ] { x, y }; }\n\nprobability ( A | Z ) { table 0.5, 0.5; }",
     3, "undeclared variable 'Z'"),
    ("variable A { type discrete [ 2 ] { x, y }; }\nprobability ( A ) {\n  table 0.5, 0.2, 0.3;\n}",
     3, "the table has 3 values"),
    ("variable A { type discrete [ 2 ] { x, y }; }\nprobability ( A ) {\n  table 0.5, 0.7;\n}",
     2, "sums to"),
    ("variable A { type discrete [ 2 ] { x, y }; }\nvariable B { type discrete [ 2 ] { x, y }; }\n"
     "probability ( A ) { table 0.5, 0.5; }\nprobability ( B | A ) {\n (x) 0.5, 0.5;\n (z) 0.1, 0.9;\n}",
     6, "'z' is not a state"),
    ("variable A { type discrete [ 2 ] { x, y }; }\nvariable B { type discrete [ 2 ] { x, y }; }\n"
     "probability ( A ) { table 0.5, 0.5; }\nprobability ( B | A ) {\n (x) 0.5, 0.5;\n}",
     4, "no row for (A=y)"),
    ("variable A { type discrete [ 2 ] { x, y }; }\nprobability ( A ) {\n  table 0.5, abc;\n}",
     3, "expected probabilities"),
    ("variable A { type discrete [ 2 ] { x, y }; }\nbogus\n", 2, "expected 'network'"),
    ("variable A { type discrete [ 2 ] { x, y }; \n", 1, "not closed"),
])
def test_malformed_bif_names_the_line(text, line, words):
    with pytest.raises(UserError) as e:
        parse_bif(text, source="bad.bif")
    assert f"bad.bif, line {line}:" in str(e.value) and words in str(e.value)


def test_bif_cycle_and_missing_block():
    base = "variable A { type discrete [ 2 ] { x, y }; }\nvariable B { type discrete [ 2 ] { x, y }; }\n"
    cyc = base + ("probability ( A | B ) { (x) 0.5, 0.5; (y) 0.5, 0.5; }\n"
                  "probability ( B | A ) { (x) 0.5, 0.5; (y) 0.5, 0.5; }\n")
    with pytest.raises(UserError, match="cycle"):
        parse_bif(cyc)
    with pytest.raises(UserError, match="'B' has no probability block"):
        parse_bif(base + "probability ( A ) { table 0.5, 0.5; }")


# ----------------------------------------------------------------------------- sampler

def _within(freq, p, n, z=4.0):
    se = np.sqrt(np.maximum(p * (1 - p), 1e-12) / n)
    return np.abs(freq - p) <= z * se + 1e-12


@pytest.mark.parametrize("name", ["asia", "cancer", "earthquake", "survey", "sachs"])
def test_sampler_matches_exact_marginals_and_pairs(name):
    bn, n = load_network(name), 200_000
    x = sample(bn, n, np.random.default_rng(12345))
    assert x.shape == (n, bn.d) and x.dtype == np.uint8
    joint = exact_joint(bn)
    for i, p in enumerate(exact_marginals(bn)):
        freq = np.bincount(x[:, i], minlength=bn.cards[i]) / n
        assert freq.size == bn.cards[i]
        assert _within(freq, p, n).all(), (bn.variables[i], freq, p)
    pairs = list(itertools.combinations(range(bn.d), 2))
    for i, j in pairs[:30]:
        pij = joint.sum(axis=tuple(k for k in range(bn.d) if k not in (i, j)))
        counts = np.zeros_like(pij)
        np.add.at(counts, (x[:, i], x[:, j]), 1)
        assert _within(counts / n, pij, n).all(), (bn.variables[i], bn.variables[j])


def test_sampler_never_draws_impossible_states():
    bn = load_network("asia")
    x = sample(bn, 100_000, 7)
    tub, lung, either = (bn.index(v) for v in ("tub", "lung", "either"))
    yes = 0  # states are (yes, no)
    should_be_yes = (x[:, tub] == yes) | (x[:, lung] == yes)
    assert np.array_equal(x[:, either] == yes, should_be_yes)
    ins = load_network("insurance")
    y = sample(ins, 50_000, 3)
    for v in range(ins.d):
        cfg = np.zeros(len(y), dtype=np.int64)
        for p in ins.parents[v]:
            cfg = cfg * ins.cards[p] + y[:, p]
        assert (ins.cpts[v][cfg, y[:, v]] > 0).all(), ins.variables[v]


def test_sampler_is_seeded():
    bn = load_network("alarm")
    a = sample(bn, 70_000, np.random.default_rng(1))
    b = sample(bn, 70_000, 1)
    c = sample(bn, 70_000, 2)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert sample(bn, 0, 0).shape == (0, bn.d) and sample(bn, 1, 0).shape == (1, bn.d)
    assert (a.max(axis=0) < np.array(bn.cards)).all()


# ----------------------------------------------------------------------------- linear SEM

@pytest.mark.parametrize("kind", ["er", "sf"])
def test_random_dag_is_acyclic_with_expected_edges(kind):
    import networkx as nx

    for seed in range(5):
        b = random_dag(30, 60, kind, np.random.default_rng(seed))
        assert b.dtype == bool and b.shape == (30, 30) and not b.diagonal().any()
        assert nx.is_directed_acyclic_graph(nx.DiGraph(b))
        if kind == "er":
            assert b.sum() == 60
        else:  # m = 2 edges per new node: 1 + 2 * 28
            assert b.sum() == 57
            # hubs are sinks: the largest in-degree exceeds the largest out-degree (which is <= m)
            assert b.sum(axis=0).max() > b.sum(axis=1).max() == 2
    assert np.array_equal(random_dag(12, 20, "er", 4), random_dag(12, 20, "er", 4))
    with pytest.raises(UserError, match="between 0 and 45"):
        random_dag(10, 46, "er", 0)
    with pytest.raises(UserError, match="unknown graph kind"):
        random_dag(10, 5, "tree", 0)


def test_random_weights_ranges():
    b = random_dag(40, 200, "er", 0)
    w = random_weights(b, np.random.default_rng(1))
    assert np.array_equal(w != 0, b)
    vals = np.abs(w[b])
    assert ((vals >= 0.5) & (vals <= 2.0)).all()
    assert 0.3 < (w[b] > 0).mean() < 0.7


def test_linear_sem_covariance_matches_implied():
    rng = np.random.default_rng(5)
    b = random_dag(6, 8, "er", rng)
    w = random_weights(b, rng)
    x = simulate_linear_sem(w, 200_000, "gauss", np.random.default_rng(6), noise_scale=1.0)
    inv = np.linalg.inv(np.eye(6) - w)
    implied = inv.T @ inv  # (I - W)^{-T} Sigma_e (I - W)^{-1}, Sigma_e = I
    emp = np.cov(x, rowvar=False)
    assert np.abs(emp - implied).max() < 0.03 * np.abs(implied).max()
    assert np.abs(x.mean(axis=0)).max() < 0.05 * np.sqrt(np.diag(implied)).max()


def test_linear_sem_noises_and_seeds():
    w = random_weights(random_dag(5, 4, "er", 0), 0)
    for noise in ("gauss", "exp", "gumbel", "uniform"):
        a = simulate_linear_sem(w, 500, noise, 3)
        assert a.shape == (500, 5) and np.isfinite(a).all()
        assert np.array_equal(a, simulate_linear_sem(w, 500, noise, 3))
    roots = np.flatnonzero(~(w != 0).any(axis=0))
    e = simulate_linear_sem(w, 20_000, "exp", 1)[:, roots]
    assert (e > 0).all() and np.allclose(e.mean(axis=0), 1.0, atol=0.05)  # Exp(1) noise, as NOTEARS
    with pytest.raises(UserError, match="unknown noise"):
        simulate_linear_sem(w, 10, "cauchy", 0)
    with pytest.raises(UserError, match="cycle"):
        simulate_linear_sem(np.array([[0, 1.0], [1.0, 0]]), 10, "gauss", 0)


# ----------------------------------------------------------------------------- tabular

def _err(data, **kw) -> str:
    with pytest.raises(UserError) as e:
        load_csv(data, **kw)
    return str(e.value)


def test_csv_rejections_say_what_is_wrong():
    assert "empty" in _err(b"")
    assert "empty" in _err(b"\n  \n")
    assert "no data rows" in _err(b"a,b\n")
    assert "only one column" in _err(b"a\n1\n2\n")
    msg = _err("a,b\ncaf\xe9,1\n".encode("latin-1"))
    assert "UTF-8" in msg and "line 2" in msg
    assert "duplicate column names: 'a'" in _err(b"a,b,a\n1,2,3\n")
    assert "'b'" in _err(b"a,b,c\n1,,x\n2,NA,y\n3,?,z\n") and "no values" in _err(b"a,b\n1,\n2,\n")
    wide = ",".join(f"c{i}" for i in range(101)) + "\n" + ",".join(["1"] * 101) + "\n"
    assert "101 columns" in _err(wide.encode())
    assert "line 4" in _err(b"a,b,c\n1,2,3\n4,5,6\n7,8\n9,10,11\n")          # short row
    assert "line 3" in _err(b"a,b\n1,2\n3,4,5\n6,7\n")                       # long row
    assert "line 2" in _err(b"a,b\n1,2,3\n3,4\n")                            # long first row
    assert "line 4" in _err(b'a,b,c\n"x,y",2,3\n\n4,5\n')                    # quoted file, blank line
    # a quote never closed takes the rest of the file: the message points at the line that opened it
    msg = _err(b'a,b,c\n1,"2,3\n' + b"1,2,3\n" * 201)
    assert "quote opened on line 2 is never closed" in msg and "line 203" in msg
    assert "lines 4–5" in _err(b'a,b,c\n1,"x\ny",3\n4,"p\nq"\n5,6,7\n')    # a quoted value over two lines
    assert "missing values" in _err(b"a,b\n1,2\n3,\n", missing="error")
    assert "'drop' or 'error'" in _err(b"a,b\n1,2\n", missing="keep")
    assert "infinite" in _err(b"a,b\n1,inf\n2,3\n")


def test_csv_size_and_row_limits(monkeypatch):
    import cgdcore.data.tabular as tab

    monkeypatch.setattr(tab, "MAX_BYTES", 100)
    msg = _err(b"a,b\n" + b"1,2\n" * 50)
    assert "MB" in msg and "over the" in msg and "limit" in msg
    monkeypatch.setattr(tab, "MAX_BYTES", 200 * 2**20)
    monkeypatch.setattr(tab, "MAX_ROWS", 10)
    assert "11 rows" in _err(b"a,b\n" + b"1,2\n" * 11)


def test_csv_types_missing_and_encoding(tmp_path):
    text = ("num, cat ,int,flag\n"
            "1.5, b ,1,yes\n"
            "2.5,a,2,no\n"
            ",c,3,yes\n"        # missing numeric
            "4.5, NA ,1,no\n"   # missing categorical
            "5.5,b,?,no\n"      # missing integer
            "6.5,c,2,null\n"    # missing flag
            "7.5,a,3,yes\n")
    path = tmp_path / "t.csv"
    path.write_text(text)
    for src in (path, str(path), text.encode(), io.BytesIO(text.encode())):
        ds = load_csv(src)
        assert ds.variables == ("num", "cat", "int", "flag")
        assert ds.states[0] is None and ds.states[2] is None
        assert ds.states[1] == ("a", "b") and ds.states[3] == ("no", "yes")  # "c" rows were dropped
        assert ds.n == 3 and ds.notes == ("dropped 4 of 7 rows with missing values",)
        np.testing.assert_array_equal(ds.data[:, 0], [1.5, 2.5, 7.5])
        labels = [ds.states[1][int(c)] for c in ds.data[:, 1]]
        assert labels == ["b", "a", "a"]
        assert [ds.states[3][int(c)] for c in ds.data[:, 3]] == ["yes", "no", "yes"]
    assert load_csv(path).name == "upload:t.csv"
    sc = load_csv(b"x;y\n1;a\n2;b\n")  # semicolon separated, fully numeric + categorical
    assert sc.variables == ("x", "y") and sc.n == 2
    disc = load_csv(b"x,y\nu,a\nv,b\nu,b\n")
    assert disc.is_discrete and disc.data.dtype == np.uint8


def test_discretise_quantile_bins():
    rng = np.random.default_rng(0)
    n = 3000
    x = rng.normal(size=n)
    body = "\n".join(f"{a:.6f},{c},{k},7" for a, c, k in zip(x, rng.choice(["p", "q"], n), rng.integers(0, 3, n)))
    ds = load_csv(("x,c,k,const\n" + body + "\n").encode())
    d3 = discretise(ds, bins=3)
    assert d3.is_discrete and d3.data.dtype == np.uint8
    counts = np.bincount(d3.data[:, 0])
    assert counts.size == 3 and np.abs(counts - n / 3).max() <= 2
    assert d3.states[0][0].startswith("q1 [") and d3.states[0][2].endswith("]")
    assert d3.states[1] == ("p", "q")                                       # categorical untouched
    assert len(d3.states[2]) == 3                                           # ties: 0/1/2 -> 3 bins
    assert d3.states[3] == ("q1 [7, 7]",) and (d3.data[:, 3] == 0).all()    # constant column
    d5 = discretise(ds, bins=5, columns=["x"])
    assert len(d5.states[0]) == 5 and d5.states[2] is None
    assert np.abs(np.bincount(d5.data[:, 0].astype(int)) - n / 5).max() <= 2
    with pytest.raises(UserError, match="unknown column"):
        discretise(ds, columns=["nope"])
    with pytest.raises(UserError, match="bins"):
        discretise(ds, bins=1)


def test_check_discrete_usable():
    labels = [f"L{i:02d}" for i in range(65)]
    body = "\n".join(f"{lab},{i % 2}" for i, lab in enumerate(labels * 2))
    ds = load_csv(("many,b\n" + body + "\n").encode())
    with pytest.raises(UserError) as e:
        check_discrete_usable(ds)
    assert "'many'" in str(e.value) and "65 categories" in str(e.value)  # reported before numeric 'b'
    with pytest.raises(UserError) as e:
        check_discrete_usable(ds, max_categories=65)
    assert "'b'" in str(e.value) and "discretise" in str(e.value)   # b is numeric
    dd = discretise(ds, bins=2)
    with pytest.raises(UserError) as e:
        check_discrete_usable(dd)
    assert "'many'" in str(e.value) and "65 categories" in str(e.value)
    check_discrete_usable(dd, max_categories=65)
    check_discrete_usable(load_dataset("asia", n=100))


# ----------------------------------------------------------------------------- registry

def test_every_listed_dataset_loads():
    infos = list_datasets()
    names = [i.name for i in infos]
    assert set(NETWORK_SIZES) <= set(names) and {"sachs-cont", "adult", "synthetic"} <= set(names)
    for info in infos:
        ds = load_dataset(info.name, n=200, seed=1)
        assert ds.n == 200 and ds.d == info.n_vars, info.name
        assert (ds.truth is None) == (info.truth is None)
        assert ds.kind == info.kind
        if ds.truth is not None:
            assert ds.truth.shape == (ds.d, ds.d) and ds.truth_name
        assert ds.source and ds.licence


def test_network_dataset_cached_and_seeded():
    a = load_dataset("asia", n=5000, seed=3)
    b = load_dataset("asia", n=5000, seed=3)
    c = load_dataset("asia", n=5000, seed=4)
    assert a.data is b.data and not np.array_equal(a.data, c.data)
    assert not a.data.flags.writeable
    assert np.array_equal(a.data, sample(load_network("asia"), 5000, 3))
    assert load_dataset("asia").n == 10_000
    assert any("faithfulness" in s for s in a.notes)
    assert any("faithfulness" in s for s in load_dataset("insurance", n=100).notes)
    assert not any("faithfulness" in s for s in load_dataset("alarm", n=100).notes)


def test_sachs_cont_truths_and_rows():
    cons = load_dataset("sachs-cont:truth=consensus")
    bnl = load_dataset("sachs-cont:truth=bnlearn")
    assert cons.n == 853 and cons.kind == "continuous"
    assert cons.truth.sum() == 18 and "consensus" in cons.truth_name and "18" in cons.truth_name
    assert bnl.truth.sum() == 17 and "sachs.bif" in bnl.truth_name and "17" in bnl.truth_name
    # the default truth is the bnlearn DAG: the consensus graph has a directed cycle
    assert np.array_equal(load_dataset("sachs-cont").truth, bnl.truth)
    assert find_cycle(bnl.truth) == [] and len(find_cycle(cons.truth)) == 3
    assert any("plcg -> PIP2 -> PIP3 -> plcg" in s for s in cons.notes)
    assert not any("cycle" in s for s in bnl.notes)
    v = cons.variables
    assert cons.truth[v.index("PIP3"), v.index("pakts473")]
    assert bnl.truth[v.index("p44/42"), v.index("pakts473")]   # Erk -> Akt in bnlearn only
    assert load_dataset("sachs-cont:rows=all").n == 7466
    sub = load_dataset("sachs-cont", n=100, seed=2)
    assert sub.n == 100 and np.array_equal(sub.data, load_dataset("sachs-cont", n=100, seed=2).data)
    assert {tuple(r) for r in sub.data} <= {tuple(r) for r in cons.data}
    with pytest.raises(UserError, match="rows=all"):
        load_dataset("sachs-cont", n=1000)


def test_adult():
    ds = load_dataset("adult")
    assert ds.truth is None and ds.truth_name is None and ds.n == 45_222
    assert ds.variables == ("age", "workclass", "education", "marital-status", "occupation", "relationship",
                            "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
                            "native-country", "income")
    numeric = {v for v, s in zip(ds.variables, ds.states) if s is None}
    assert numeric == {"age", "capital-gain", "capital-loss", "hours-per-week"}
    assert ds.states[ds.variables.index("income")] == ("<=50K", ">50K")
    assert ds.states[ds.variables.index("sex")] == ("Female", "Male")
    assert any("3,620" in s for s in ds.notes)
    assert load_dataset("adult", n=1000, seed=5).n == 1000


def test_synthetic_spec():
    a = load_dataset("synthetic:graph=sf,d=20,degree=2,noise=gumbel,graph_seed=3", n=300, seed=1)
    b = load_dataset("synthetic:graph=sf,d=20,degree=2,noise=gumbel,graph_seed=3", n=300, seed=2)
    c = load_dataset("synthetic:graph=sf,d=20,degree=2,noise=gumbel,graph_seed=4", n=300, seed=1)
    assert a.d == 20 and np.array_equal(a.truth, b.truth) and not np.array_equal(a.data, b.data)
    assert not np.array_equal(a.truth, c.truth)
    er = load_dataset("synthetic")
    assert er.n == 1000 and er.d == 10 and er.truth.sum() == 20 and "ER-2" in er.truth_name


@pytest.mark.parametrize("spec, n, words", [
    ("nosuch", None, "unknown dataset 'nosuch'; choose one of: earthquake"),
    ("asia:rows=all", None, "valid options: none"),
    ("sachs-cont:truth=mine", None, "bnlearn, consensus"),
    ("sachs-cont:colour=red", None, "valid options: rows (default observational), truth"),
    ("synthetic:graph=tree", None, "er, sf"),
    ("synthetic:d=abc", None, "not a whole number"),
    ("synthetic:d=1", None, "out of range"),
    ("synthetic:d=10,degree=9", None, "out of range"),
    ("synthetic:d", None, "key=value"),
    ("synthetic:d=5,d=6", None, "given twice"),
    ("", None, "dataset name is required"),
    ("asia", 1, "n=1 is out of range"),
    ("asia", 2_000_001, "out of range"),
    ("asia", 2.5, "whole number"),
])
def test_spec_errors(spec, n, words):
    with pytest.raises(UserError) as e:
        load_dataset(spec, n=n)
    assert words in str(e.value)


def test_parse_spec():
    assert parse_spec(" Sachs-Cont : truth=bnlearn , rows=all ") == ("sachs-cont", {"truth": "bnlearn", "rows": "all"})
    assert parse_spec("asia") == ("asia", {})


def test_import_is_light():
    import subprocess
    import sys

    from conftest import ROOT

    code = ("import sys, cgdcore.data; "
            "print(sorted(m for m in ('pandas', 'scipy', 'networkx') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "[]", (r.stdout, r.stderr)
