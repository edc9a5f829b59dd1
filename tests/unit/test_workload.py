"""The per-request work estimate and ceiling of the shared app (cgdcore.workload)."""
import math
import os
import shlex

import pytest

from cgdcore.cli import main
from cgdcore.cli import command_line as cli_command
from cgdcore.workload import DEFAULT_CEILING, ceiling, work_units


def test_estimate_orders_runs_as_their_cost_does():
    alarm = work_units("pc", 100_000, 37)
    assert alarm < DEFAULT_CEILING / 5  # the usual demos run
    assert work_units("pc", 2_000_000, 223) > 10 * DEFAULT_CEILING  # PC on Andes at 2M rows does not
    assert work_units("fhe-pc", 10_000, 20) > DEFAULT_CEILING  # a warm encrypted run on 20 variables does not
    assert work_units("fhe-pc", 10_000, 8) < DEFAULT_CEILING  # Asia's encrypted run does (31 s)
    assert work_units("fhe-pc", 10_000, 11) > DEFAULT_CEILING  # Sachs's does not (203 s)
    assert work_units("fhe-pc", 10_000, 20, options={"mode": "aggregate"}) < work_units("fhe-pc", 10_000, 20)
    assert work_units("pc", 100_000, 37, max_order=0) < alarm
    assert work_units("em-pc", 100_000, 37) > alarm


def test_ceiling_is_configurable(monkeypatch):
    monkeypatch.setenv("CGD_MAX_WORK", "1e6")
    assert ceiling() == 1e6
    monkeypatch.setenv("CGD_MAX_WORK", "0")
    assert ceiling() == math.inf
    monkeypatch.delenv("CGD_MAX_WORK")
    assert ceiling() == DEFAULT_CEILING


def test_refusal_names_a_command_that_runs(capsys):
    cmd = cli_command("asia", 2000, {"algo": "priv-pc", "epsilon": 5.0, "max_order": 1, "alpha": 0.1,
                                     "options": {"tweak": 0.05, "on_message": print}})
    assert cmd.startswith("python -m cgdcore discover --dataset asia --n 2000") and "--tweak 0.05" in cmd
    assert main(shlex.split(cmd)[3:] + ["--json"]) == 0
    assert cli_command("upload:my data.csv", 50, {"algo": "pc"}).startswith("python -m cgdcore discover --data 'my data.csv'")


def test_heavy_slots_bound_concurrent_runs_and_nest(monkeypatch):
    import threading
    import time

    from ui import common

    monkeypatch.setattr(common, "HEAVY_SLOTS", 2)
    live, peak, lock = [0], [0], threading.Lock()

    def job():
        with common.heavy_slot():
            with common.heavy_slot():  # a heavy run calling another keeps its slot, never deadlocks
                with lock:
                    live[0] += 1
                    peak[0] = max(peak[0], live[0])
                time.sleep(0.05)
                with lock:
                    live[0] -= 1

    threads = [threading.Thread(target=job) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not any(t.is_alive() for t in threads)
    assert peak[0] == 2
    s = common._slots()
    assert s["running"] == 0 and s["waiting"] == 0


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="per-thread niceness is a Linux feature")
def test_a_heavy_run_lowers_only_its_own_threads_priority(monkeypatch):
    """Inside heavy_slot the computing thread runs at HEAVY_NICE, so page scripts and the web server get the cores
    first; the thread that called it before (here: the test's main thread) keeps its niceness, and the computing
    thread gets its own back when the slot is left where the system allows (as root: a test worker's main thread
    left at niceness 10 ran every later test at a tenth of a core's share)."""
    import threading

    from ui import common

    monkeypatch.setattr(common, "HEAVY_NICE", 10)
    main_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen = {}

    def job():
        tid = threading.get_native_id()
        seen["before"] = os.getpriority(os.PRIO_PROCESS, tid)
        with common.heavy_slot():
            seen["inside"] = os.getpriority(os.PRIO_PROCESS, tid)
        seen["after"] = os.getpriority(os.PRIO_PROCESS, tid)

    t = threading.Thread(target=job)
    t.start()
    t.join(10)
    assert seen["before"] == main_nice and seen["inside"] == max(main_nice, 10)
    if os.geteuid() == 0:  # raising a thread's priority again needs the privilege to
        assert seen["after"] == main_nice
    else:
        assert seen["after"] in (main_nice, max(main_nice, 10))
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main_nice
    monkeypatch.setattr(common, "HEAVY_NICE", 0)  # 0: off
    t = threading.Thread(target=job)
    t.start()
    t.join(10)
    assert seen["inside"] == main_nice


def test_sweep_estimate_sums_its_runs_and_counts_the_shared_statistics():
    from cgdcore.experiments import SweepSpec
    from cgdcore.experiments.cost import WARM_TEST_UNITS, run_units, sweep_units

    eps = (0.1, 1.0, 10.0)
    one = SweepSpec(datasets=("sachs",), algorithms=("priv-pc",), epsilons=eps, n=(100_000,), reps=2)
    runs = one.runs()
    cold, warm = run_units(runs[0]), run_units(runs[0], warm=True)
    assert cold == work_units("priv-pc", 100_000, 11)
    assert warm == math.comb(11, 2) * 4 * WARM_TEST_UNITS < cold / 2
    # the first run in each worker pays the row-passes, the other five draw noise over cached statistics
    assert sweep_units(one) == pytest.approx(cold + 5 * warm)
    assert sweep_units(one, jobs=2) == pytest.approx(2 * cold + 4 * warm)
    # runs already stored are not counted; a finished sweep costs nothing
    assert sweep_units(one, done=[r.key for r in runs[:3]]) == pytest.approx(cold + 2 * warm)
    assert sweep_units(one, done=[r.key for r in runs]) == 0
    # a local mechanism randomises the records anew on every run: each pays in full
    local = SweepSpec(datasets=("sachs",), algorithms=("pc+krr-cwise",), epsilons=eps, n=(100_000,), reps=2)
    assert sweep_units(local) == pytest.approx(6 * work_units("pc", 100_000, 11))
    # more runs, rows or variables never cost less
    assert sweep_units(SweepSpec(datasets=("alarm",), algorithms=("priv-pc",), epsilons=eps, n=(100_000,),
                                 reps=2)) > sweep_units(one)
    assert sweep_units(SweepSpec(datasets=("sachs",), algorithms=("priv-pc", "em-pc"), epsilons=eps,
                                 n=(100_000,), reps=2)) > sweep_units(one)


def test_trade_off_default_sweep_fits_and_a_paper_figure_on_every_network_does_not():
    from cgdcore.experiments import SweepSpec, parse_epsilon_grid
    from cgdcore.experiments.cost import sweep_units
    from cgdcore.experiments.presets import PRESETS

    default = SweepSpec(datasets=("sachs",), algorithms=("priv-pc", "svt-pc", "em-pc"),
                        epsilons=parse_epsilon_grid("logspace:-2:1.5:21"), n=(100_000,), reps=5, variant="original")
    assert sweep_units(default, jobs=2) < DEFAULT_CEILING
    assert sweep_units(PRESETS["privpc-fig1"].spec, jobs=2) > DEFAULT_CEILING  # 2,205 runs, Alarm and Child in them


def test_dataset_shape_reads_the_registry():
    from cgdcore.experiments.cost import dataset_shape

    assert dataset_shape("alarm", 5000) == (5000, 37)
    assert dataset_shape("sachs-cont", 100_000) == (853, 11)  # real data: at most its own rows
    assert dataset_shape("synthetic:d=20", 300) == (300, 20)
