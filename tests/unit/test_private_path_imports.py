"""SVT-PC and Priv-PC need no scipy: the line's Φ⁻¹ comes from the standard library, Priv-PC's Laplace-noise
critical value from ln Φ over the C library's erfc and a bisection to one ulp, and the PLD total is
computed in closed form (tests/unit/test_pld_pure.py). These tests pin each replacement to the scipy function it
replaces, the sparse-vector runs' decisions to those made with scipy's, and the import set of both runs."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cgdcore.central import policies, scale
from cgdcore.central.roots import bisect_root
from cgdcore.data import load_dataset
from cgdcore.discover import discover

ROOT = Path(__file__).resolve().parents[2]
special = pytest.importorskip("scipy.special")
optimize = pytest.importorskip("scipy.optimize")


def test_z_alpha_is_scipys_quantile_to_rounding():
    for alpha in np.concatenate([np.geomspace(1e-9, 0.999, 400), [0.05, 0.01, 0.1, 0.001]]):
        for sided, q in (("one", alpha), ("two", alpha / 2.0)):
            assert scale.z_alpha(float(alpha), sided) == pytest.approx(-float(special.ndtri(q)), rel=2e-15, abs=0)


def test_bisection_finds_each_root_to_an_ulp():
    funcs = [(lambda x: x ** 3 - 2 * x - 5, 2.0945514815423265), (lambda x: math.cos(x) - x, 0.7390851332151607),
             (lambda x: math.exp(x) - 10, math.log(10)), (lambda x: math.atan(x - 0.3), 0.3),
             (lambda x: (x - 1.5) ** 5, 1.5)]
    n = 0
    for f, root in funcs:
        for a, b in ((-3.0, 5.0), (0.0, 4.0), (-10.0, 10.0), (1.0, 3.0)):
            if (f(a) > 0) == (f(b) > 0):
                continue
            x = bisect_root(f, a, b)
            assert abs(x - root) <= 4 * math.ulp(root) + 1e-15, (x, root)
            n += 1
    assert n >= 12
    with pytest.raises(ValueError):
        bisect_root(lambda x: x * x + 1, -1.0, 1.0)


def test_log_ndtr_is_scipys_to_5e_10():
    xs = np.concatenate([np.linspace(-400.0, 40.0, 20_001), np.linspace(-21.0, 7.0, 20_001)])
    ours = np.array([scale.log_ndtr(float(x)) for x in xs])
    np.testing.assert_allclose(ours, special.log_ndtr(xs), rtol=5e-10, atol=1e-300)  # (subnormal tails)


def _scipy_critical_value(z_a, b):
    target = math.erfc(z_a / math.sqrt(2.0)) / 2.0

    def tail(c):
        a = 1.0 / b
        t = (math.exp(special.log_ndtr(-c)) + 0.5 * math.exp(0.5 * a * a - a * c + special.log_ndtr(c - a))
             - 0.5 * math.exp(0.5 * a * a + a * c + special.log_ndtr(-c - a)))
        return min(1.0, max(0.0, t)) - target

    return float(optimize.brentq(tail, z_a, z_a + 40.0 * b + 10.0, xtol=1e-15, rtol=8.9e-16))


def test_laplace_critical_value_is_scipys_to_1e_13():
    for z_a in np.concatenate([np.linspace(0.3, 6.0, 12), [1.6448536269514729, 2.3263478740408408]]):
        for b in np.geomspace(0.05, 7.08, 25):
            assert scale.critical_value(float(z_a), "laplace", float(b)) == pytest.approx(
                _scipy_critical_value(float(z_a), float(b)), rel=1e-13, abs=0)


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
    monkeypatch.setattr(scale, "log_ndtr", lambda x: float(special.log_ndtr(x)))
    monkeypatch.setattr(scale, "bisect_root", lambda f, lo, hi: optimize.brentq(f, lo, hi, xtol=1e-10))
    theirs = [_run_facts(discover(ds, algo=algo, round_epsilon=1.0, seed=s)) for s in (0, 1)]
    assert ours == theirs


def test_sparse_vector_cli_imports_no_scipy_on_small_data():
    code = ("import sys, json\n"
            "from cgdcore.cli import main\n"
            "for algo in ('svt-pc', 'priv-pc'):\n"
            "    assert main(['discover', '--dataset', 'sachs', '--n', '20000', '--algo', algo,\n"
            "                 '--round-epsilon', '1', '--noise-seed', '0', '--json']) == 0\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'dp_accounting'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
