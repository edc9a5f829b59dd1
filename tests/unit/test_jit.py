"""Processes that need the same new kernel at the same moment compile it once: the others wait for the file lock
beside numba's cache and load what the first one saved (:func:`cgdcore.jit.njit`)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

KERNELS = """
from cgdcore.jit import njit

@njit(cache=True, nogil=True)
def inner(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i]
    return s

@njit(cache=True, nogil=True)
def outer(a):
    return inner(a) + 1.0
"""

#: waits until the given moment, calls the outer kernel, prints its and the inner kernel's cache misses and hits
CALL = """
import json, sys, time
sys.path.insert(0, sys.argv[2])
import numpy as np
import kern_{tag} as kern
start = float(sys.argv[1])
while time.time() < start:
    time.sleep(0.001)
assert kern.outer(np.arange(5.0)) == 31.0
print(json.dumps({{name: [sum(d.stats.cache_misses.values()), sum(d.stats.cache_hits.values())]
                  for name, d in (("outer", kern.outer), ("inner", kern.inner))}}))
"""


def _at_once(tmp_path, tag: str, processes: int = 3) -> list[dict]:
    (tmp_path / f"kern_{tag}.py").write_text(textwrap.dedent(KERNELS), encoding="utf-8")
    start = time.time() + 4.0  # every process has imported numpy and numba by then
    procs = [subprocess.Popen([sys.executable, "-c", CALL.format(tag=tag), str(start), str(tmp_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(processes)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    return [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]


def test_processes_starting_together_compile_each_kernel_once(tmp_path):
    stats = _at_once(tmp_path, "a")
    outer = [s["outer"] for s in stats]
    assert sorted(outer) == [[0, 1]] * (len(stats) - 1) + [[1, 0]], stats  # compiled once, loaded by the others
    # the inner kernel is compiled once, by the process that compiled the outer one (a loaded kernel holds its callees)
    assert sum(s["inner"][0] for s in stats) == 1, stats
    # a later process loads the outer kernel from the cache
    again = _at_once(tmp_path, "a", processes=1)[0]
    assert again["outer"] == [0, 1], again


#: a fresh process hands the kernels every kind of input the core makes (fresh and cached tables, read-only and
#: writable, transposed views, a whole data set and a sub-sample of it) and
#: prints how many signatures each kernel was compiled or loaded for
ONE_SIGNATURE = """
import json
import numpy as np
from cgdcore.citests import chisq, contingency, kendall
from cgdcore.citests.contingency import SuffStats
from cgdcore import kernels

chisq.USE_KERNEL = kendall.USE_KERNEL = contingency.USE_KERNEL = True
rng = np.random.default_rng(0)
data = rng.integers(0, 3, size=(400, 7)).astype(np.uint8)
ss = SuffStats(data, [3] * 7)
for stats in (ss, ss.subsample(np.arange(0, 400, 2))):
    for x, y, S in ((0, 1, ()), (1, 0, (2,)), (0, 3, (1, 2)), (6, 0, (1, 2, 3, 4, 5))):  # 5 > TABLE_DIRECT_MAX_S
        t = stats.table(x, y, S)            # read-only, and a transposed view when x > y
        for tab in (t, np.array(t), np.asfortranarray(t), t[:, ::-1, :], t[0]):
            chisq.chisq_from_table(tab, "pearson")
            chisq.chisq_from_table(tab, "log-likelihood")
            if tab.ndim == 3:
                kendall.kendall_z_from_table(tab)
                kendall.kendall_public_z_from_table(tab, 400)
print(json.dumps({k.__name__: len(k.signatures) for k in (kernels.chisq_stat, kernels.kendall_sums,
                                                           kernels.table_direct, kernels.table_coded)}))
"""


def test_every_caller_reaches_a_kernel_with_one_signature():
    """``cgdcore.jit.frozen`` at the kernels' call sites: inputs that differ only in memory layout or writeable flag
    reach one compiled signature (each further one would cost 0.2–0.8 CPU-seconds to compile, once per install)."""
    out = subprocess.run([sys.executable, "-c", ONE_SIGNATURE], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    assert counts == {"chisq_stat": 1, "kendall_sums": 1, "table_direct": 1, "table_coded": 1}, counts
