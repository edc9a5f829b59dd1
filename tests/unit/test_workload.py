"""The per-request work estimate and ceiling of the shared app (cgdcore.workload)."""
import math
import shlex

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
