"""The χ² upper tail for whole dof: equal to the exact value (mpmath) to 1e-12 and to scipy's chdtrc to 1e-11
(scipy's own error reaches 5e-12 deep in the tail at large dof), and PC decides exactly as with scipy's."""
import math

import numpy as np
import pytest

from cgdcore.citests import chisq, clear_suffstats_cache
from cgdcore.citests.chi2_tail import chi2_upper_tail
from cgdcore.data import load_dataset
from cgdcore.discover import discover

special = pytest.importorskip("scipy.special")
mpmath = pytest.importorskip("mpmath")

DOFS = list(range(1, 40)) + [63, 64, 99, 100, 255, 256, 1000, 1001, 4095, 20000, 20001]


def _grid(dof, points):
    return [float(s) for s in np.geomspace(1e-6, 5 * dof + 2000, points)] + [float(dof), dof - 1.0, dof + 1.0, 0.5]


def test_equals_scipy_to_1e_11():
    for dof in DOFS:
        for s in _grid(dof, 120):
            want = float(special.chdtrc(dof, s))
            got = chi2_upper_tail(s, dof)
            if want < 1e-290:
                assert got < 1e-280
            else:
                assert got == pytest.approx(want, rel=1e-11, abs=0), (s, dof)


def test_equals_the_exact_tail_to_1e_12():
    mpmath.mp.dps = 40
    for dof in (1, 2, 3, 7, 30, 101, 1000, 4095, 20001):
        for s in _grid(dof, 12):
            exact = mpmath.gammainc(mpmath.mpf(dof) / 2, mpmath.mpf(s) / 2, mpmath.inf, regularized=True)
            if exact < mpmath.mpf("1e-290"):
                continue
            assert chi2_upper_tail(s, dof) == pytest.approx(float(exact), rel=1e-12, abs=0), (s, dof)


def test_edges():
    assert chi2_upper_tail(0.0, 3) == 1.0
    assert chi2_upper_tail(-1.0, 3) == 1.0
    assert chi2_upper_tail(math.inf, 3) == 0.0
    assert chi2_upper_tail(math.nan, 3) == 0.0
    assert chi2_upper_tail(1e6, 2) == 0.0
    assert chisq.chi2_sf(3.0, 0) == 1.0
    assert chisq.chi2_sf(2.5, 1.5) == pytest.approx(float(special.chdtrc(1.5, 2.5)), rel=1e-15)  # fractional dof


@pytest.mark.parametrize("net", ["asia", "sachs", "child", "alarm"])
@pytest.mark.parametrize("test", ["g2", "chi2"])
def test_pc_decides_as_with_scipy(monkeypatch, net, test):
    ds = load_dataset(net, n=5000, seed=2)

    def run():
        clear_suffstats_cache()  # CI results are cached per dataset: recompute every p-value
        r = discover(ds, ci_test=test, alpha=0.01).result
        return ((r.cpdag.tolist(), dict(r.sepsets), r.n_ci_tests, [(t.x, t.y, t.S, t.independent) for t in r.trace]),
                [t.p_value for t in r.trace])

    ours, p_ours = run()
    calls = []
    monkeypatch.setattr(chisq, "chi2_upper_tail", lambda s, k: calls.append(k) or float(special.chdtrc(k, s)))
    theirs, p_scipy = run()
    assert calls  # the p-values were recomputed with scipy's
    assert theirs == ours
    np.testing.assert_allclose(p_ours, p_scipy, rtol=1e-11, atol=1e-290)
