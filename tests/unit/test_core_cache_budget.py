"""The core's deterministic caches (shared statistics, tables, stratum codes, CI results) are bounded in bytes
(CGD_CORE_CACHE_MB), and the bytes they are charged cover the memory they really hold (measured by tracemalloc)."""
from __future__ import annotations

import gc
import itertools
import tracemalloc

import numpy as np
import pytest

from cgdcore.citests import contingency, make_ci_test, shared_ci_test, suffstats_for
from cgdcore.citests.budget import RESULT_ENTRY_BYTES, core_cache_bytes, shares
from cgdcore.citests.contingency import SuffStats, clear_suffstats_cache, shared_nbytes

ARITIES = (2, 3, 2, 4, 2, 3, 2, 2)


def discrete_data(seed: int, n: int = 5000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.integers(0, a, n) for a in ARITIES], axis=1).astype(np.uint8)


def queries(d: int, max_order: int):
    for x, y in itertools.combinations(range(d), 2):
        rest = [v for v in range(d) if v not in (x, y)]
        for k in range(max_order + 1):
            for S in itertools.combinations(rest, k):
                yield x, y, S


def run_all(test, max_order: int = 2) -> int:
    count = 0
    for x, y, S in queries(len(ARITIES), max_order):
        test(x, y, S)
        count += 1
    return count


def traced_bytes() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


@pytest.fixture
def fresh_registry():
    clear_suffstats_cache()
    yield
    clear_suffstats_cache()


def test_budget_reads_the_environment(monkeypatch):
    monkeypatch.setenv("CGD_CORE_CACHE_MB", "3")
    assert core_cache_bytes() == 3 * 2**20
    assert shares() == {"strata": 3 * 2**18, "tables": 3 * 2**17, "results": 3 * 2**17}
    for bad in ("0", "-1", "lots", ""):
        monkeypatch.setenv("CGD_CORE_CACHE_MB", bad)
        assert core_cache_bytes() == 512 * 2**20
    assert shares(2**40) == {"strata": 112 * 2**20, "tables": 32 * 2**20, "results": 2**37}


def test_result_charge_covers_what_a_cached_result_holds():
    stats = SuffStats(discrete_data(0), ARITIES, table_cache_items=10**6, table_cache_bytes=2**30)
    for name in ("chi2", "g2", "kendall"):
        run_all(make_ci_test(name, stats), max_order=3)  # every table cached: the second test only adds results
        test = make_ci_test(name, stats)
        tracemalloc.start()
        try:
            before = traced_bytes()
            entries = run_all(test, max_order=3)
            held = traced_bytes() - before
        finally:
            tracemalloc.stop()
        assert test.nbytes == entries * RESULT_ENTRY_BYTES
        assert held <= test.nbytes, f"{name}: {held / entries:.0f} bytes per result, charged {RESULT_ENTRY_BYTES}"


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy tables over cached strata", "compiled tables"])
def test_array_caches_charge_what_they_hold(monkeypatch, compiled):
    monkeypatch.setattr(contingency, "USE_KERNEL", compiled)
    warm = SuffStats(discrete_data(5), ARITIES)
    for x, y, S in queries(len(ARITIES), 2):  # the table code's imports and first-use allocations, untraced
        warm.table(x, y, S)
    stats = SuffStats(discrete_data(1), ARITIES)
    tracemalloc.start()
    try:
        before = traced_bytes()
        for x, y, S in queries(len(ARITIES), 2):
            stats.table(x, y, S)
        held = traced_bytes() - before
    finally:
        tracemalloc.stop()
    info = stats.cache_info()
    assert info["table_items"] > 500 and (compiled or info["strata_items"] > 20)
    assert held <= info["table_bytes"] + info["strata_bytes"]


def test_result_cache_starts_over_at_its_byte_cap():
    stats = SuffStats(discrete_data(2), ARITIES)
    test = make_ci_test("chi2", stats)
    test.max_entries = 100
    run_all(test)
    assert 0 < test.nbytes <= 100 * RESULT_ENTRY_BYTES
    assert test.n_computed == test.n_calls  # nothing repeated, so every call computed


def test_shared_statistics_stay_within_the_budget(monkeypatch, fresh_registry):
    budget_mb = 2
    monkeypatch.setenv("CGD_CORE_CACHE_MB", str(budget_mb))
    budget = budget_mb * 2**20
    # warm up the imports and kernels the runs below use, both tests' (no first use inside the traced window), so
    # what remains traced afterwards is only what the caches keep
    for name in ("g2", "kendall"):
        run_all(shared_ci_test(name, suffstats_for(discrete_data(99), ARITIES)))
    clear_suffstats_cache()
    tracemalloc.start()
    try:
        base = traced_bytes()
        grown = 0
        for seed in range(8):  # eight datasets, as an unbounded registry would keep
            data = discrete_data(seed)
            stats = suffstats_for(data, ARITIES)  # a run starts: the registry is trimmed to the budget
            assert shared_nbytes() <= budget
            for name in ("g2", "kendall"):
                run_all(shared_ci_test(name, stats))
            grown = max(grown, shared_nbytes())
            del data, stats
        suffstats_for(discrete_data(7), ARITIES)  # the next run starts on the last dataset
        held = traced_bytes() - base
    finally:
        tracemalloc.stop()
    assert grown > budget  # the runs did fill more than the budget between starts
    assert shared_nbytes() <= budget
    assert held <= budget, f"the core's caches hold {held / 2**20:.2f} MiB, budget {budget_mb} MiB"


def test_one_dataset_over_the_budget_empties_its_caches(monkeypatch, fresh_registry):
    monkeypatch.setenv("CGD_CORE_CACHE_MB", "0.1")
    monkeypatch.setattr(contingency, "USE_KERNEL", False)  # the path that caches stratum codes, whatever ran before
    data = discrete_data(3)
    stats = suffstats_for(data, ARITIES)
    for name, opts in (("kendall", {}), ("kendall", {"sided": "one"}), ("kendall", {"normaliser": "public"}),
                       ("chi2", {})):
        run_all(shared_ci_test(name, stats, **opts))
    test = shared_ci_test("g2", stats)
    run_all(test)
    assert stats.nbytes() > 0.1 * 2**20  # each cache within its share, all of them together over the budget
    assert suffstats_for(data, ARITIES) is stats  # still shared, its caches emptied
    assert stats.nbytes() <= 0.1 * 2**20 and test.nbytes == 0
    assert test(0, 1, (2,)) == make_ci_test("g2", SuffStats(data, ARITIES))(0, 1, (2,))
