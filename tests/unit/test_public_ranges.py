"""Nothing a private run releases is computed from the rows behind its back — bins and clipping come
from public ranges, DP-NOTEARS centres with public constants, and exact-data diagnostics are labelled.
Each regression test builds a neighbouring pair (one row replaced) that exposes the old behaviour."""
import io
import json

import numpy as np
import pytest

from cgdcore import UserError
from cgdcore.data import load_dataset
from cgdcore.data.dataset import Dataset
from cgdcore.data.tabular import discretise, format_ranges, load_csv, parse_ranges
from cgdcore.discover import discover
from cgdcore.local.privatize import privatize
from conftest import ROOT, cli


def _numeric(x: np.ndarray, ranges=None) -> Dataset:
    return Dataset(name="numbers", variables=tuple(f"v{j}" for j in range(x.shape[1])), data=x,
                   states=(None,) * x.shape[1], ranges=dict(ranges or {}))


def _neighbours(seed=0, n=400):
    rng = np.random.default_rng(seed)
    x = rng.normal(50, 10, (n, 2))
    y = x.copy()
    y[0] = [1e6, -1e6]  # one row replaced by an outlier
    return x, y


def test_public_bins_move_one_row_quantile_and_min_max_bins_move_many():
    x, y = _neighbours()
    ranges = {"v0": (0.0, 100.0), "v1": (0.0, 100.0)}
    a = discretise(_numeric(x, ranges), bins=4, method="public")
    b = discretise(_numeric(y, ranges), bins=4, method="public")
    assert np.count_nonzero((a.data != b.data).any(axis=1)) <= 1  # only the replaced row
    assert a.states == b.states  # the labels are the public range's, the same for both
    # the old ways: quantile edges, or [min, max] of the data, let one row move many binned rows
    qa = discretise(_numeric(x), bins=4)
    qb = discretise(_numeric(y), bins=4)
    assert np.count_nonzero((qa.data != qb.data).any(axis=1)) > 1 or qa.states != qb.states
    lo, hi = x.min(axis=0), x.max(axis=0)
    old_a = np.minimum(3, np.floor(4 * (x - lo) / (hi - lo)))
    lo2, hi2 = y.min(axis=0), y.max(axis=0)
    old_b = np.minimum(3, np.floor(4 * (y - lo2) / (hi2 - lo2)))
    assert np.count_nonzero((old_a != old_b).any(axis=1)) > 100


def test_labels_never_carry_a_value_of_the_data():
    ds = load_dataset("sachs-cont")
    priv, _ = privatize(ds, "krr-cwise", epsilon=5.0, seed=0, bins=4, log=True)
    labels = " ".join(" ".join(s) for s in priv.states)
    for v in np.unique(np.concatenate([ds.data.min(axis=0), ds.data.max(axis=0)])):
        if v not in (1.0, 10_000.0):  # the declared public range's ends may appear
            assert f"{v:g}" not in labels
    assert "10000" in labels or "1e+04" in labels


def test_a_numeric_column_without_a_public_range_is_refused_with_what_to_do():
    x, _ = _neighbours()
    with pytest.raises(UserError, match=r"public range.*--ranges v0=LOW:HIGH"):
        privatize(_numeric(x), "krr-cwise", epsilon=1.0)
    with pytest.raises(UserError, match="public range"):
        discover(_numeric(x), algo="svt-pc", ci_test="kendall", bins=3, round_epsilon=1.0)
    # with ranges it runs, and non-private PC keeps its quantile bins
    priv, rel = privatize(_numeric(x), "krr-cwise", epsilon=1.0, ranges={"v0": (0, 100), "v1": (0, 100)}, bins=4)
    assert priv.states[0][0].startswith("b1 [0, 25)")
    r = discover(_numeric(x), algo="pc", ci_test="g2", bins=3)
    assert any("quantile" in note for note in r.notes)


def test_central_private_runs_bin_numeric_data_over_public_ranges():
    ds = load_dataset("sachs-cont:rows=all")
    r = discover(ds, algo="svt-pc", ci_test="kendall", bins=3, round_epsilon=1.0, seed=0)
    assert any("public ranges" in note and "praf=1:10000" in note for note in r.notes), r.notes
    assert all(s[0].startswith("b1 [1, ") for s in r.dataset.states)


def test_ranges_parse_and_print():
    assert parse_ranges("age=17:90, hours=1:99") == {"age": (17.0, 90.0), "hours": (1.0, 99.0)}
    assert format_ranges({"a": (0.0, 1.5)}) == "a=0:1.5"
    for bad in ("age", "age=1", "age=a:b", "age=5:1", "age=1:inf", "nope=1:2"):
        with pytest.raises(UserError):
            parse_ranges(bad, ("age",))


def test_public_log_bins_need_a_positive_range():
    x, _ = _neighbours()
    with pytest.raises(UserError, match="above 0"):
        discretise(_numeric(np.abs(x), {"v0": (0, 100), "v1": (1, 100)}), bins=3, method="public-log")


def _cli(*args):
    return cli(*args)


def test_cli_ranges_and_single_column_privatize(tmp_path):
    csv = tmp_path / "one.csv"
    csv.write_text("income\n" + "\n".join(str(v) for v in np.random.default_rng(0).integers(0, 200, 300)))
    out = tmp_path / "p.csv"
    r = _cli("privatize", "--data", str(csv), "--mechanism", "krr-cwise", "--epsilon", "2", "--out", str(out))
    assert r.returncode == 2 and "--ranges income=LOW:HIGH" in r.stderr and "Traceback" not in r.stderr
    r = _cli("privatize", "--data", str(csv), "--mechanism", "krr-cwise", "--epsilon", "2", "--ranges",
             "income=0:250", "--bins", "5", "--out", str(out))
    assert r.returncode == 0, r.stderr
    body = [v.strip('"') for v in out.read_text().splitlines()]
    assert body[0] == "income" and len(body) == 301 and all(v.startswith("b") for v in body[1:])
    assert {v.split(" ")[1] for v in body[1:]} <= {"[0,", "[50,", "[100,", "[150,", "[200,"}
    r = _cli("privatize", "--data", str(csv), "--mechanism", "krr-cwise", "--epsilon", "2", "--ranges",
             "income=9:1", "--out", str(out))
    assert r.returncode == 2 and "low < high" in r.stderr


def test_dp_notears_gradient_moves_by_its_sensitivity_under_public_centring():
    """Centring with the data's own means let one row move every per-sample gradient (55× Δ₂)."""
    from cgdcore.score.dp_notears import clipped_gradient, gradient_sensitivity
    from cgdcore.score.run import prepare_matrix

    rng = np.random.default_rng(1)
    n, d, clip = 500, 4, 2.0
    x = rng.normal(0, 1, (n, d))
    y = x.copy()
    y[0] = 1e4  # one row replaced by an outlier (clipped to the public box [-6, 6] when private)
    ranges = {f"v{j}": (-6.0, 6.0) for j in range(d)}
    W = rng.normal(0, 0.3, (d, d))
    np.fill_diagonal(W, 0)
    sens = gradient_sensitivity(n, d, clip)
    gx = clipped_gradient(prepare_matrix(_numeric(x, ranges), private=True)[0], W, clip)
    gy = clipped_gradient(prepare_matrix(_numeric(y, ranges), private=True)[0], W, clip)
    assert np.linalg.norm(gx - gy) <= sens * (1 + 1e-9)
    old_x = clipped_gradient(prepare_matrix(_numeric(x))[0], W, clip)
    old_y = clipped_gradient(prepare_matrix(_numeric(y))[0], W, clip)
    assert np.linalg.norm(old_x - old_y) > 2 * sens  # the old centring exceeds the stated sensitivity
    with pytest.raises(UserError, match="public range"):
        prepare_matrix(_numeric(x), private=True)


def test_exact_data_diagnostics_are_labelled_and_apart():
    ds = load_dataset("asia", n=20_000, seed=0)
    js = discover(ds, algo="laplace-pc", epsilon=5.0, seed=1).to_json()
    assert js["diagnostics"]["note"] == "computed from the exact data, not covered by ε"
    assert 0 <= js["diagnostics"]["decisions_flipped"] <= js["diagnostics"]["noisy_decisions"]
    assert "diagnostics" not in discover(ds, algo="pc").to_json()
    fhe = discover(load_dataset("asia", n=5000, seed=0), algo="fhe-pc", epsilon=2.0, seed=0,
                   options={"dp": "once", "mode": "aggregate"}).to_json()
    assert "agreement" not in fhe["fhe"] and "shd_vs_plaintext" not in fhe["fhe"]
    assert "agreement" not in json.dumps(fhe["fhe"]["levels"])
    assert fhe["diagnostics"]["note"].startswith("computed from the exact data")
    assert 0 <= fhe["diagnostics"]["agreement"] <= 1
