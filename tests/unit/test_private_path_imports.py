"""SVT-PC needs no scipy: its line Φ⁻¹ comes from the standard library and its PLD total is computed in closed
form (tests/unit/test_pld_pure.py). These tests pin Φ⁻¹ to scipy's, the sparse-vector runs' decisions to those made
with scipy's, and the import set of an SVT-PC run. (Priv-PC still solves its Laplace-noise line with scipy.)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cgdcore.central import policies, scale
from cgdcore.data import load_dataset
from cgdcore.discover import discover

ROOT = Path(__file__).resolve().parents[2]
special = pytest.importorskip("scipy.special")


def test_z_alpha_is_scipys_quantile_to_rounding():
    for alpha in np.concatenate([np.geomspace(1e-9, 0.999, 400), [0.05, 0.01, 0.1, 0.001]]):
        for sided, q in (("one", alpha), ("two", alpha / 2.0)):
            assert scale.z_alpha(float(alpha), sided) == pytest.approx(-float(special.ndtri(q)), rel=2e-15, abs=0)


def _scipy_z_alpha(alpha, sided="one"):
    return float(-special.ndtri(alpha if sided == "one" else alpha / 2.0))


def _run_facts(r):
    res = r.result
    return (res.cpdag.tolist(), dict(res.sepsets), res.n_ci_tests,
            [(t.x, t.y, t.S, t.independent, t.stage) for t in res.trace], r.to_json()["privacy"]["releases"])


@pytest.mark.parametrize("net", ["asia", "sachs", "child"])
@pytest.mark.parametrize("algo", ["svt-pc", "priv-pc"])
def test_sparse_vector_runs_decide_as_with_scipy(monkeypatch, net, algo):
    ds = load_dataset(net, n=20_000, seed=1)
    ours = [_run_facts(discover(ds, algo=algo, round_epsilon=1.0, seed=s)) for s in (0, 1)]
    monkeypatch.setattr(scale, "z_alpha", _scipy_z_alpha)
    monkeypatch.setattr(policies, "z_alpha", _scipy_z_alpha, raising=False)
    theirs = [_run_facts(discover(ds, algo=algo, round_epsilon=1.0, seed=s)) for s in (0, 1)]
    assert ours == theirs


def test_svt_cli_imports_no_scipy_on_small_data():
    code = ("import sys, json\n"
            "from cgdcore.cli import main\n"
            "assert main(['discover', '--dataset', 'sachs', '--n', '20000', '--algo', 'svt-pc',\n"
            "             '--round-epsilon', '1', '--noise-seed', '0', '--json']) == 0\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'dp_accounting'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
