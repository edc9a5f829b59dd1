"""A Dask worker killed while a sweep runs: the sweep finishes and its file holds every run exactly once."""
import os
import signal

import pytest

from cgdcore.experiments import SweepSpec, read_table, run_sweep
from cgdcore.experiments.results import row_key
from conftest import Lazy, local_cluster

pd = Lazy("pandas")

SPEC = SweepSpec(datasets=("asia",), n=(20_000,), algorithms=("pc", "priv-pc", "svt-pc", "em-pc"),
                 epsilons=(0.05, 0.5, 5.0), reps=2, seed=7)


def test_a_worker_killed_mid_sweep_loses_no_row_and_duplicates_none(tmp_path):
    distributed = pytest.importorskip("distributed")
    expected = run_sweep(SPEC, jobs=1)
    keys = [row_key(r) for r in expected.to_dict("records")]
    out = tmp_path / "res.csv"
    killed, partial_at_end = [], []
    with local_cluster() as cluster, distributed.Client(cluster) as client:

        def kill_a_busy_worker_after_the_first_row(done, total, eta, row):
            if row is not None and not killed:
                busy = [w for w, tasks in client.processing().items() if tasks]
                assert busy, "no run in flight when the first row came back"
                pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                os.kill(pid, signal.SIGKILL)  # the worker process dies with its chunk half done; its nanny restarts it
                killed.append((done, total))
            if done == total:  # every row appended to the file as it came back, before the final rewrite
                partial_at_end.append(pd.read_csv(out))

        table = run_sweep(SPEC, backend="dask", scheduler=cluster.scheduler_address, out=out,
                          progress=kill_a_busy_worker_after_the_first_row)
    assert killed and killed[0][0] < killed[0][1]  # killed mid-sweep
    streamed = [row_key(r) for r in partial_at_end[0].to_dict("records")]
    assert sorted(streamed) == sorted(keys)  # each run once in the file as rows arrived: none lost, none twice
    final = read_table(out)
    assert [row_key(r) for r in final.to_dict("records")] == keys
    for df in (table, final):
        pd.testing.assert_frame_equal(df.drop(columns="seconds"), expected.drop(columns="seconds"), check_exact=True)
