"""The automatic choice between the numpy and the compiled (numba) tables: small runs never load numba, large
ones load it up front, and a run that switches half-way makes the decisions of an all-numpy run.

Each case runs in a fresh interpreter, because once numba is loaded in a process the choice is always compiled."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _fresh(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_compiled_pays_rule(monkeypatch):
    from cgdcore.citests import contingency

    monkeypatch.setattr(contingency, "kernels_loaded", lambda: False)
    monkeypatch.setattr(contingency, "_numpy_rows", 0)
    assert not contingency.compiled_pays(100_000, 11)        # sachs: 55 pairs × 100k < 10^7
    assert contingency.compiled_pays(100_000, 20)            # child: 190 pairs × 100k ≥ 10^7
    assert not contingency.compiled_pays(10**9, 1)           # one column: no pairs
    monkeypatch.setattr(contingency, "_numpy_rows", contingency._COMPILED_AFTER_ROWS)
    assert contingency.compiled_pays(1000, 3)                # enough numpy work done already
    monkeypatch.setattr(contingency, "kernels_loaded", lambda: True)
    monkeypatch.setattr(contingency, "_numpy_rows", 0)
    assert contingency.compiled_pays(10, 2)                  # numba already paid for


def test_small_discover_loads_neither_numba_nor_pandas(tmp_path):
    from cgdcore.data import load_dataset

    csv = tmp_path / "asia.csv"
    load_dataset("asia", n=3000, seed=0).to_frame().to_csv(csv, index=False)
    got = _fresh(f"""
import contextlib, io, json, sys
from cgdcore.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = main(["discover", "--data", {str(csv)!r}, "--algo", "pc", "--ci-test", "g2", "--json"])
print(json.dumps({{"code": code, "edges": len(json.loads(out.getvalue())["edges"]),
                  "loaded": [m for m in ("numba", "pandas", "cgdcore.kernels") if m in sys.modules]}}))
""")
    assert got["code"] == 0 and got["edges"] > 0
    assert got["loaded"] == []


def test_large_discover_loads_the_kernels_up_front():
    got = _fresh("""
import json, sys
from cgdcore.citests import contingency
from cgdcore.data import load_dataset
from cgdcore.discover import discover
ds = load_dataset("alarm", n=400_000, seed=0)   # 666 pairs × 400k rows ≥ 10^7: compiled from the first table
discover(ds, ci_test="g2", max_order=0)
print(json.dumps({"numpy_rows": contingency._numpy_rows, "loaded": "cgdcore.kernels" in sys.modules}))
""")
    assert got == {"numpy_rows": 0, "loaded": True}


@pytest.mark.parametrize("test", ["g2", "kendall"])
def test_switch_half_way_makes_the_numpy_decisions(test):
    got = _fresh(f"""
import json, sys
import numpy as np
from cgdcore.citests import chisq, clear_suffstats_cache, contingency, kendall
from cgdcore.data import load_dataset
from cgdcore.discover import discover
ds = load_dataset("child", n=3000, seed=4)
contingency.USE_KERNEL = chisq.USE_KERNEL = kendall.USE_KERNEL = False
ref = discover(ds, ci_test={test!r}).result
contingency.USE_KERNEL = chisq.USE_KERNEL = kendall.USE_KERNEL = None
contingency._numpy_rows = 0
contingency._COMPILED_AFTER_ROWS = 150 * 3000          # switch after 150 numpy tables
clear_suffstats_cache()
loaded_before = "cgdcore.kernels" in sys.modules
new = discover(ds, ci_test={test!r}).result
close = all(abs(a.statistic - b.statistic) <= 1e-12 * max(1.0, abs(a.statistic))
            and abs(a.p_value - b.p_value) <= 1e-12 for a, b in zip(ref.trace, new.trace))
print(json.dumps({{"loaded_before": loaded_before, "loaded_after": "cgdcore.kernels" in sys.modules,
                  "numpy_rows": contingency._numpy_rows, "same_graph": bool(np.array_equal(ref.cpdag, new.cpdag)),
                  "same_sepsets": ref.sepsets == new.sepsets, "same_tests": ref.n_ci_tests == new.n_ci_tests,
                  "decisions": [t.independent for t in ref.trace] == [t.independent for t in new.trace],
                  "close": close, "n": new.n_ci_tests}}))
""")
    assert not got["loaded_before"] and got["loaded_after"]
    assert got["numpy_rows"] == 150 * 3000 and got["n"] > 150
    assert got["same_graph"] and got["same_sepsets"] and got["same_tests"] and got["decisions"] and got["close"]


def test_kernels_load_without_scipy_linalg_and_blas_still_works():
    """Loading the kernels skips numba's BLAS probe (no scipy.linalg import); compiled np.dot, compiled later in the
    same process, still finds BLAS, and the import hook is gone."""
    got = _fresh("""
import json, sys
import numpy as np
from cgdcore import kernels
from cgdcore.jit import frozen
loaded = "scipy.linalg" in sys.modules
t, K = kernels.table_direct(frozen(np.zeros((2, 5), np.uint8)), 0, 1, np.zeros(0, np.int64), np.zeros(0, np.int64),
                            1, 1, 1, frozen(np.empty(0, np.int64)), False)
from numba import njit
dot = njit(lambda a, b: np.dot(a, b))
print(json.dumps({"scipy_linalg_at_load": loaded, "count": int(t[0]), "dot": float(dot(np.ones(3), np.arange(3.0))),
                  "hook_left": any(type(f).__name__ == "_NoScipyLinalg" for f in sys.meta_path)}))
""")
    assert got == {"scipy_linalg_at_load": False, "count": 5, "dot": 3.0, "hook_left": False}


def test_only_the_loading_thread_is_refused_scipy_linalg():
    """While the kernels load in one thread (an app session), another thread importing scipy.linalg gets it."""
    got = _fresh("""
import json, sys, threading
from cgdcore import jit

finder = jit._NoScipyLinalg(threading.get_ident())
sys.meta_path.insert(0, finder)
seen = {}
try:
    import scipy.linalg
    seen["loader"] = "imported"
except ImportError:
    seen["loader"] = "refused"
def other():
    try:
        import scipy.linalg
        seen["other"] = scipy.linalg.__name__
    except ImportError as e:
        seen["other"] = repr(e)
t = threading.Thread(target=other)
t.start()
t.join()
sys.meta_path.remove(finder)
print(json.dumps(seen))
""")
    assert got == {"loader": "refused", "other": "scipy.linalg"}
