"""Encrypted runs in a child process: the same Result as in process, status lines passed back, errors raised as
themselves, and a cancel during key generation (one uninterruptible SEAL call) ends the run at once."""
import threading
import time

import numpy as np
import psutil
import pytest

from cgdcore import UserError
from cgdcore.cancel import Cancelled, cancellable
from cgdcore.data import load_dataset
from cgdcore.discover import discover
from cgdcore.fhe.isolated import discover_in_child

#: the promise the app makes for every page: a stopped run ends within this many seconds
STOP_BOUND = 5.0


@pytest.fixture(scope="module")
def asia():
    return load_dataset("asia", n=5_000, seed=0)


def child_pids() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_child_run_equals_the_run_in_process_and_relays_its_status_lines(asia):
    said = []
    opts = {"mode": "aggregate", "owners": 2}
    here = discover(asia, algo="fhe-pc", max_order=1, seed=3, options=dict(opts))
    there = discover_in_child(asia, algo="fhe-pc", max_order=1, seed=3, options={**opts, "on_message": said.append})
    assert there.result.cpdag.tolist() == here.result.cpdag.tolist()
    assert there.metrics == here.metrics
    assert there.fhe.summary["ckks"] == here.fhe.summary["ckks"]
    assert np.isclose(there.fhe.report["agreement"], here.fhe.report["agreement"])
    assert any(m.startswith("generating the CKKS keys (N = 8192") for m in said)
    assert all(isinstance(m, str) for m in said)


def test_a_user_error_in_the_child_is_raised_as_itself(asia):
    with pytest.raises(UserError, match="G² or χ²"):
        discover_in_child(asia, algo="fhe-pc", ci_test="kendall", options={"mode": "aggregate"})


def test_cancel_during_key_generation_ends_the_run_within_the_bound(asia):
    """Warm mode generates keys at N = 32768 (≈ 2.3 CPU-s in one SEAL call); the stop is asked for half a second
    into it, and the run (its process included) must be gone within STOP_BOUND seconds of that."""
    asked: dict[str, float] = {}
    before = child_pids()

    def on_message(msg: str):
        if msg.startswith("generating the CKKS keys (N = 32768") and "keygen" not in asked:
            threading.Timer(0.5, lambda: asked.setdefault("at", time.monotonic())).start()
            asked["keygen"] = time.monotonic()

    def check():
        if "at" in asked:
            raise Cancelled("stopped by the test")

    t0 = time.monotonic()
    with pytest.raises(Cancelled):
        with cancellable(check, interval=0.05):
            discover_in_child(asia, algo="fhe-pc", max_order=2, options={"mode": "warm", "on_message": on_message})
    ended = time.monotonic()
    assert "keygen" in asked, "the run never reached key generation"
    assert ended - asked["at"] < STOP_BOUND, f"the run ended {ended - asked['at']:.1f} s after the stop"
    assert ended - t0 < 60
    assert child_pids() <= before, "the run's process is still alive"
