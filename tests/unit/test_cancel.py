"""cgdcore.cancel: checkpoints in the inner loops end a run when the installed check raises; the app's slots and
caches are left clean."""
import threading
import time

import pytest

from cgdcore.cancel import Cancelled, StopFile, cancellable, checkpoint, installed


def _raise_after(calls: int):
    """A check that raises Cancelled on its ``calls``-th call; ``.n`` counts the calls."""
    def check():
        check.n += 1
        if check.n >= calls:
            raise Cancelled("stop")
    check.n = 0
    return check


def test_checkpoint_is_a_no_op_without_a_check():
    assert not installed()
    for _ in range(1000):
        checkpoint()


def test_the_check_runs_at_most_once_per_interval(monkeypatch):
    import types

    from cgdcore import cancel

    clock = [100.0]  # the module's clock, advanced 1 ms per reading: no scheduler can stretch a gap
    calls = []

    def monotonic():
        clock[0] += 0.001
        return clock[0]

    monkeypatch.setattr(cancel, "time", types.SimpleNamespace(monotonic=monotonic))
    with cancellable(lambda: calls.append(clock[0]), interval=0.05):
        assert installed()
        for _ in range(300):  # 0.3 s of the module's clock
            checkpoint()
    assert not installed()
    assert 5 <= len(calls) <= 6, len(calls)  # 0.3 s / 0.05 s, not one per loop turn
    assert all(b - a >= 0.05 - 1e-9 for a, b in zip(calls, calls[1:])), calls
    every = []
    with cancellable(lambda: every.append(1), interval=0.0):
        for _ in range(10):
            checkpoint()
    assert len(every) == 10


def test_nested_checks_replace_and_restore():
    outer, inner = [], []
    with cancellable(lambda: outer.append(1), interval=0.0):
        with cancellable(lambda: inner.append(1), interval=0.0):
            checkpoint()
        checkpoint()
    assert (len(outer), len(inner)) == (1, 1)
    with pytest.raises(ValueError):
        with cancellable(lambda: None, interval=-1):
            pass


def test_a_check_applies_to_its_own_thread_only():
    seen = []

    def other():
        seen.append(installed())
        checkpoint()  # would raise if the check leaked into this thread

    with cancellable(_raise_after(1), interval=0.0):
        t = threading.Thread(target=other)
        t.start()
        t.join(5)
    assert seen == [False]


def _asia(n=2000):
    from cgdcore.data import load_dataset

    return load_dataset("asia", n=n, seed=0)


@pytest.mark.parametrize("algo, kw", [
    ("pc", {"ci_test": "g2"}),
    ("priv-pc", {"round_epsilon": 1.0, "seed": 0}),
    ("svt-pc", {"round_epsilon": 1.0, "seed": 0}),
    ("curate", {"epsilon": 2.0, "seed": 0}),
    ("em-pc", {"round_epsilon": 1.0, "seed": 0}),
    ("notears", {}),
    ("noleaks", {"epsilon": 1.0, "seed": 0}),
])
def test_every_engine_stops_at_a_checkpoint(algo, kw):
    from cgdcore.discover import discover

    ds = _asia()
    check = _raise_after(3)
    with cancellable(check, interval=0.0):
        with pytest.raises(Cancelled):
            discover(ds, algo=algo, **kw)
    assert check.n == 3
    discover(ds, algo=algo, **kw)  # nothing left behind: the same run completes without a check


def test_local_privacy_runs_stop_at_a_checkpoint():
    from cgdcore.discover import discover
    from cgdcore.local.compare import utility_curve

    ds = _asia()
    with cancellable(_raise_after(2), interval=0.0), pytest.raises(Cancelled):
        discover(ds, algo="pc", ci_test="g2", seed=0,
                 ldp={"mechanism": "krr-cwise", "epsilon": 2.0, "seed": 0, "debias": "invert"})
    done = []

    def after_four_runs():
        if len(done) >= 4:
            raise Cancelled("stop")

    with cancellable(after_four_runs, interval=0.0), pytest.raises(Cancelled):
        utility_curve(ds, mechanisms=["krr-cwise"], levels=[0.5, 0.9], seeds=range(3),
                      progress=lambda d, t: done.append(d))
    assert done == [1, 2, 3, 4]  # stopped inside the fifth of the curve's nine runs


def test_encrypted_pc_stops_at_a_checkpoint(monkeypatch):
    from cgdcore.discover import discover
    from cgdcore.fhe import run

    monkeypatch.setattr(run, "_reset_high_water_mark", lambda: False)  # measure memory with the sampler thread
    check = _raise_after(2)
    with cancellable(check, interval=0.0), pytest.raises(Cancelled):
        discover(_asia(500), algo="fhe-pc", options={"owners": 2})
    assert check.n == 2
    assert not any(t.name == "rss-sampler" and t.is_alive() for t in threading.enumerate())


def test_stop_file_is_seen_by_its_check():
    stop = StopFile()
    try:
        stop.check()
        stop.request()
        with pytest.raises(Cancelled):
            stop.check()
    finally:
        stop.close()
    stop.check()  # removed
    stop.close()  # twice is fine


def _sweep_spec(reps):
    from cgdcore.experiments import SweepSpec

    return SweepSpec(datasets=("child",), algorithms=("priv-pc",), epsilons=(0.5, 1.0, 2.0), n=(50_000,),
                     reps=reps, seed=0)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_sweep_stops_in_process_and_in_worker_processes(jobs):
    """A parallel sweep is waited on with checkpoints and its workers see a stop file; rows recorded before the stop
    are whole rows, and fewer than the sweep has."""
    from cgdcore.experiments import run_sweep

    spec = _sweep_spec(reps=300)  # minutes of work: a pool left running would still be busy below
    rows, started = [], time.monotonic()

    def check():
        if rows or time.monotonic() - started > 3.0:
            raise Cancelled("stop")

    with cancellable(check, interval=0.05), pytest.raises(Cancelled):
        run_sweep(spec, jobs=jobs, on_row=rows.append)
    assert len(rows) < len(spec.runs())
    assert all(r["skeleton_f1"] == r["skeleton_f1"] for r in rows)  # complete rows only
    if jobs > 1:  # the pool is gone: no worker of this process is still computing
        import psutil

        assert not any(t.name == "sweep-pool" and t.is_alive() for t in threading.enumerate())

        deadline = time.monotonic() + 10
        busy = None
        while time.monotonic() < deadline:
            kids = psutil.Process().children(recursive=True)
            busy = [k for k in kids if _cpu_share(k) > 0.5]
            if not busy:
                break
        assert not busy


def _cpu_share(proc, window=0.5) -> float:
    import psutil

    try:
        a = sum(proc.cpu_times()[:2])
        time.sleep(window)
        return (sum(proc.cpu_times()[:2]) - a) / window
    except psutil.NoSuchProcess:
        return 0.0


def _fresh_slots(monkeypatch, slots=1):
    from ui import common

    monkeypatch.setattr(common, "HEAVY_SLOTS", slots)
    s = common._slots()
    assert s["running"] == 0 and s["waiting"] == 0
    return common, s


def test_a_slot_is_released_when_its_run_is_cancelled(monkeypatch):
    common, s = _fresh_slots(monkeypatch)
    with cancellable(_raise_after(1), interval=0.0), pytest.raises(Cancelled):
        with common.heavy_slot():
            assert s["running"] == 1
            checkpoint()
    assert s["running"] == 0 and s["waiting"] == 0
    with common.heavy_slot():  # and can be taken again
        assert s["running"] == 1


def test_a_run_waiting_for_a_slot_can_be_cancelled(monkeypatch):
    common, s = _fresh_slots(monkeypatch)
    holding, release = threading.Event(), threading.Event()

    def hold():
        with common.heavy_slot():
            holding.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert holding.wait(5)
        check = _raise_after(2)
        with cancellable(check, interval=0.0), pytest.raises(Cancelled):
            with common.heavy_slot():
                pytest.fail("the slot was never free")
        assert check.n == 2
        assert s["running"] == 1 and s["waiting"] == 0
    finally:
        release.set()
        t.join(5)
    assert s["running"] == 0 and s["waiting"] == 0


def test_a_cancelled_run_leaves_no_cache_entry(monkeypatch):
    common, _ = _fresh_slots(monkeypatch)
    calls = []

    def work(x, progress=None):
        calls.append(x)
        checkpoint()
        return x * 2

    for progress in (None, lambda *a: None):  # Streamlit's cache, then the plain store
        calls.clear()
        key = ("cancel-test", progress is None, time.monotonic())
        with cancellable(_raise_after(1), interval=0.0), pytest.raises(Cancelled):
            common.run_cached(key, work, 21, _progress=progress)
        assert common.run_cached(key, work, 21, _progress=progress) == 42
        assert common.run_cached(key, work, 21, _progress=progress) == 42
        assert calls == [21, 21]  # computed again after the abort, then served from the cache


def test_the_code_of_many_columns_stops_between_columns():
    """The distinct-row pass codes every column of the data (at 10^6 rows of Win95pts ~0.5 s of CPU, the longest
    stretch of a PC run without a checkpoint): a stop is seen between two columns, and nothing half-built is kept."""
    import numpy as np

    from cgdcore.citests.contingency import SuffStats, _distinct_rows

    rng = np.random.default_rng(0)
    rows = rng.integers(0, 2, size=(30, 300)).astype(np.uint8)
    cols = rows[:, rng.integers(0, 300, size=25_000)]  # 300 distinct rows, repeated
    check = _raise_after(5)
    with cancellable(check, interval=0), pytest.raises(Cancelled):
        _distinct_rows(cols, [2] * 30, 1.0)
    assert check.n == 5
    stats = SuffStats(cols.T.copy(), [2] * 30)
    with cancellable(_raise_after(3), interval=0), pytest.raises(Cancelled):
        stats._distinct(1.0)
    assert getattr(stats, "_distinct_rows", None) is None
    assert stats._distinct(1.0) is not None  # computed in full once nothing stops it


def test_the_statistics_copy_of_the_data_stops_between_blocks_of_rows(monkeypatch):
    """Building a dataset's statistics copies its columns into one row per variable (at 10^6 rows of Win95pts ~0.3 s
    of CPU, once the longest stretch before PC's first test): the copy goes a block of rows at a time, a stop is seen
    between two blocks, no statistics are shared for the data, and the copy is exact when nothing stops it."""
    import numpy as np

    from cgdcore.citests import contingency

    monkeypatch.setattr(contingency, "COLUMN_BLOCK_ROWS", 1000)
    contingency.clear_suffstats_cache()
    rng = np.random.default_rng(1)
    data = rng.integers(0, 3, size=(10_500, 7))
    for arities in ([3] * 7, None):
        check = _raise_after(4)
        with cancellable(check, interval=0), pytest.raises(Cancelled):
            contingency.suffstats_for(data, arities)
        assert check.n == 4 and not contingency._SHARED
        st = contingency.suffstats_for(data, arities)
        assert np.array_equal(st._values, data.T) and st._values.flags["C_CONTIGUOUS"]
        assert st._values.dtype == (np.uint8 if arities else np.float64)
        contingency.clear_suffstats_cache()
