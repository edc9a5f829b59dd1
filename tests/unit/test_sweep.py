"""Sweeps (cgdcore.experiments): reproducibility, single-row re-runs, joblib vs Dask (a worker lost), resume,
convergence to PC as ε → ∞, presets, files and bad input."""
import json
import math

import numpy as np
import pytest

from conftest import Lazy, local_cluster, private_kendall_pc
from cgdcore import UserError
from cgdcore.cli import main
from cgdcore.discover import ALGO_DEFAULTS, discover
from cgdcore.experiments import (
    COLUMNS,
    CONTRACT_COLUMNS,
    SweepSpec,
    command_for,
    config_of,
    read_table,
    run_sweep,
    summarise,
)
from cgdcore.experiments.presets import PRESETS, get_preset, paper_points
from cgdcore.experiments.spec import parse_algo, split_labels

pd = Lazy("pandas")

SMALL = SweepSpec(datasets=("asia",), n=(20_000,), algorithms=("pc", "priv-pc", "svt-pc", "em-pc"),
                  epsilons=(0.05, 0.5, 5.0), reps=2, seed=7)


def _same(a, b) -> None:
    """Equal tables apart from the measured run time."""
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), b.drop(columns="seconds"), check_exact=True)


@pytest.fixture(scope="module")
def small_table():
    return run_sweep(SMALL, jobs=1)


def test_table_has_the_contract_columns_and_one_row_per_run(small_table):
    df = small_table
    assert tuple(df.columns[:len(CONTRACT_COLUMNS)]) == CONTRACT_COLUMNS
    assert list(df.columns) == list(COLUMNS)
    # pc once; 3 private algorithms × 3 ε × 2 reps
    assert len(df) == 1 + 3 * 3 * 2
    assert df["error"].isna().all()
    assert set(df["epsilon_kind"]) == {"none", "round"}
    priv = df[df.algorithm == "priv-pc"]
    assert (priv["epsilon_total"] > 0).all() and (priv["n_ci_tests"] > 0).all()
    assert df.loc[df.algorithm == "pc", "epsilon_total"].isna().all()


def test_seeds_are_spawned_from_the_root_seed(small_table):
    children = np.random.SeedSequence(7).spawn(len(small_table))
    expect = [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]
    assert small_table["seed"].tolist() == expect
    assert len(set(expect)) == len(expect)


def test_same_seed_gives_an_identical_table_and_another_seed_does_not(small_table):
    _same(small_table, run_sweep(SMALL, jobs=1))
    other = run_sweep(SweepSpec(**{**SMALL.to_dict(), "seed": 8}), jobs=1)
    assert not np.array_equal(other["skeleton_f1"].to_numpy()[1:], small_table["skeleton_f1"].to_numpy()[1:]) or \
        not np.array_equal(other["epsilon_total"].to_numpy()[1:], small_table["epsilon_total"].to_numpy()[1:])


def test_parallel_workers_give_the_same_table(small_table):
    _same(small_table, run_sweep(SMALL, jobs=2))


def test_a_single_row_rerun_alone_from_the_command_line_reproduces_it(small_table, capsys):
    for _, row in small_table[small_table.algorithm.isin(["priv-pc", "em-pc"])].iloc[[1, 7]].iterrows():
        cmd = command_for(config_of(row, SMALL))
        assert cmd.startswith("python -m cgdcore discover")
        capsys.readouterr()
        assert main(cmd.split()[3:] + ["--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["metrics"]["skeleton_f1"] == row["skeleton_f1"]
        assert out["metrics"]["arc_f1"] == row["arc_f1"]
        assert out["metrics"]["shd"] == row["shd"]
        assert out["n_ci_tests"] == row["n_ci_tests"]
        assert _same_or_both_missing(out["privacy"]["epsilon"], row["epsilon_total"])


def _same_or_both_missing(json_value, table_value) -> bool:
    """A JSON null is the table's NaN (a run without a guarantee states no ε)."""
    return math.isnan(table_value) if json_value is None else json_value == table_value


def test_the_plain_sampler_option_reaches_the_run_and_its_command(capsys):
    spec = SweepSpec(datasets=("asia",), n=(5_000,), algorithms=("priv-pc[sampler=plain]",), epsilons=(1.0,), reps=1)
    row = run_sweep(spec).iloc[0]
    cmd = command_for(config_of(row, spec))
    assert cmd.endswith("--sampler plain")
    capsys.readouterr()
    assert main(cmd.split()[3:] + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"]["sampler"] == "plain" and out["privacy"]["guarantee"] is False
    assert _same_or_both_missing(out["privacy"]["epsilon"], row["epsilon_total"])
    assert out["metrics"]["skeleton_f1"] == row["skeleton_f1"]


def _a_script():
    import streamlit as st

    st.write("an app test ran in this process")


def test_dask_backend_gives_the_same_table_with_a_worker_killed_mid_sweep(small_table, tmp_path):
    """The sweep on a Dask cluster, one of whose workers is killed while it runs: the sweep finishes, its file holds
    every run exactly once, and the table is the in-process one. An app test runs first in this process (conftest's
    local_cluster: the cluster starts, and the nanny restarts the killed worker, as after any app test)."""
    import os
    import signal

    from streamlit.testing.v1 import AppTest

    from cgdcore.experiments.results import row_key

    distributed = pytest.importorskip("distributed")
    AppTest.from_function(_a_script).run()
    keys = [row_key(r) for r in small_table.to_dict("records")]
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

        table = run_sweep(SMALL, backend="dask", scheduler=cluster.scheduler_address, out=out,
                          progress=kill_a_busy_worker_after_the_first_row)
    assert killed and killed[0][0] < killed[0][1]  # killed mid-sweep
    streamed = [row_key(r) for r in partial_at_end[0].to_dict("records")]
    assert sorted(streamed) == sorted(keys)  # each run once in the file as rows arrived: none lost, none twice
    final = read_table(out)
    assert [row_key(r) for r in final.to_dict("records")] == keys
    for df in (table, final):
        _same(df, small_table)


def test_an_interrupted_sweep_resumes_to_the_same_table(small_table, tmp_path):
    out = tmp_path / "res.csv"
    seen = []

    def stop_after_five(done, total, eta, row):
        if row is not None:
            seen.append(row)
            if len(seen) == 5:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_sweep(SMALL, out=out, progress=stop_after_five)
    partial = pd.read_csv(out)
    assert len(partial) == 5
    new_rows = []
    df = run_sweep(SMALL, out=out, on_row=new_rows.append)
    assert len(new_rows) == len(small_table) - 5     # only the missing runs ran
    _same(small_table, df)
    _same(small_table, read_table(out))


def test_a_torn_last_line_is_rerun_and_a_different_sweep_is_refused(small_table, tmp_path):
    out = tmp_path / "res.csv"
    run_sweep(SMALL, out=out)
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:4]) + "\n" + lines[4][:25])  # killed mid-write
    _same(small_table, run_sweep(SMALL, out=out))
    other = SweepSpec(**{**SMALL.to_dict(), "reps": 1})
    with pytest.raises(UserError, match="different sweep"):
        run_sweep(other, out=out)
    assert len(run_sweep(other, out=out, resume=False)) == 1 + 3 * 3


def test_a_partial_file_from_another_program_version_is_refused(small_table, tmp_path):
    """A resumed sweep never mixes rows computed by two versions of the code (an algorithm's change changes its
    numbers): each row records the version, and a partial file of another version — or of none — is refused."""
    from cgdcore.experiments.results import code_version

    out = tmp_path / "res.csv"
    run_sweep(SMALL, out=out)
    df = pd.read_csv(out)
    assert set(df["version"]) == {code_version()}
    df.assign(version="0123456789ab").to_csv(out, index=False)
    with pytest.raises(UserError, match="another version of the program"):
        run_sweep(SMALL, out=out)
    df.drop(columns="version").to_csv(out, index=False)
    with pytest.raises(UserError, match="another version"):
        run_sweep(SMALL, out=out)
    assert len(run_sweep(SMALL, out=out, resume=False)) == len(small_table)


def test_parquet_export_round_trips(small_table, tmp_path):
    out = tmp_path / "res.parquet"
    df = run_sweep(SMALL, out=out, done_rows=small_table.to_dict("records"))
    assert not (tmp_path / "res.parquet.partial.csv").exists()
    _same(small_table, df)
    back = read_table(out)
    pd.testing.assert_frame_equal(back, df)


@pytest.mark.parametrize("algo", ["laplace-pc", "svt-pc", "priv-pc", "curate"])
def test_f1_at_huge_epsilon_equals_non_private_pc(algo):
    """Every algorithm that converges to PC reaches PC's F1 (same test, threshold and variant)."""
    spec = SweepSpec(datasets=("asia",), n=(20_000,), algorithms=(algo,), epsilons=(1e6,), reps=2, seed=3)
    df = run_sweep(spec)
    _, ref = private_kendall_pc(SMALL_DATA(), ALGO_DEFAULTS[algo]["alpha"])
    assert df["skeleton_f1"].tolist() == [ref["skeleton_f1"]] * 2
    assert df["arc_f1"].tolist() == [ref["arc_f1"]] * 2


@pytest.mark.parametrize("algo", ["pc+krr-comb", "pc+geo-cwise", "fhe-pc"])
def test_local_and_encrypted_runs_reach_pc_at_huge_epsilon(algo):
    spec = SweepSpec(datasets=("asia",), n=(20_000,), algorithms=(algo,), epsilons=(1e6,), reps=1, seed=3)
    df = run_sweep(spec)
    assert df["error"].isna().all(), df["error"].tolist()
    ref = discover(SMALL_DATA(), algo="pc")
    assert df["skeleton_f1"].iloc[0] == ref.metrics["skeleton_f1"]
    assert math.isfinite(df["epsilon_total"].iloc[0])


def SMALL_DATA():
    from cgdcore.data import load_dataset

    return load_dataset("asia", n=20_000, seed=0)


def test_total_budget_mode_caps_every_algorithm():
    spec = SweepSpec(datasets=("asia",), n=(20_000,), algorithms=("priv-pc", "svt-pc", "curate", "laplace-pc"),
                     epsilons=(2.0,), reps=2, budget="total")
    df = run_sweep(spec)
    assert (df["epsilon_kind"] == "total").all()
    assert (df["epsilon_total"] <= 2.0 + 1e-9).all() and (df["eps_used"] <= 2.0 * (1 + 1e-12)).all()
    # rounds of the sparse-vector family: the largest ε its filter admits a fixed number of times per pair of variables
    assert (df.loc[df.algorithm == "svt-pc", "n_ci_tests"] > 0).all()


def test_rejected_configurations_are_recorded_not_fatal():
    spec = SweepSpec(datasets=("asia",), n=(500,), algorithms=("pc", "priv-pc"), epsilons=(1.0,), reps=1)
    df = run_sweep(spec)
    assert df.loc[df.algorithm == "pc", "error"].isna().all()
    err = df.loc[df.algorithm == "priv-pc", "error"].iloc[0]
    assert "too few" in err and "rows" in err


def test_summary_gives_mean_and_sd_per_point(small_table):
    s = summarise(small_table, x="epsilon_total")
    row = s[(s.algorithm == "priv-pc") & (s.epsilon == 0.5)].iloc[0]
    vals = small_table[(small_table.algorithm == "priv-pc") & (small_table.epsilon == 0.5)]
    assert row["skeleton_f1_mean"] == pytest.approx(vals["skeleton_f1"].mean())
    assert row["skeleton_f1_std"] == pytest.approx(vals["skeleton_f1"].std())
    assert row["x"] == pytest.approx(vals["epsilon_total"].mean())
    assert row["reps"] == 2
    with pytest.raises(UserError):
        summarise(small_table, x="nope")


def test_algorithm_labels():
    assert split_labels("pc,priv-pc[subsample_ratio=1;tweak=0.05],pc+krr-comb") == [
        "pc", "priv-pc[subsample_ratio=1;tweak=0.05]", "pc+krr-comb"]
    a = parse_algo("priv-pc[subsample_ratio=1]")
    assert a.algo == "priv-pc" and dict(a.options) == {"subsample_ratio": 1.0} and a.kind("native") == "round"
    assert parse_algo("pc+geo-comb").kind("native") == "local"
    assert parse_algo("curate").kind("native") == "total" and parse_algo("pc").kind("total") == "none"
    for bad, msg in (("nope", "unknown algorithm"), ("priv-pc[x=1]", "unknown option"),
                     ("priv-pc[subsample_ratio=a]", "between 1 and 20"), ("svt-pc+krr-comb", "pc\\+MECH"),
                     ("curate[debias=invert]", "pc\\+MECH only")):
        with pytest.raises(UserError, match=msg):
            parse_algo(bad)


@pytest.mark.parametrize("fields,msg", [
    ({"epsilons": (0.0,)}, "positive finite"), ({"epsilons": (float("inf"),)}, "positive finite"),
    ({"epsilons": (1.0, 1.0)}, "twice"), ({"reps": 0}, "reps"), ({"datasets": ("nowhere",)}, "unknown dataset"),
    ({"algorithms": ("pc", "pc")}, "twice"), ({"budget": "all"}, "budget"), ({"n": (2,)}, "at least 5"),
    ({"epsilons": ()}, "ε grid"),
])
def test_bad_sweep_parameters_say_what_to_fix(fields, msg):
    with pytest.raises(UserError, match=msg):
        SweepSpec(**{**SMALL.to_dict(), **fields}).runs()


def test_presets_reproduce_the_papers_settings():
    fig1 = PRESETS["privpc-fig1"].spec
    assert len(fig1.datasets) == 7 and fig1.n == (100_000,) and fig1.reps == 5
    assert np.allclose(fig1.epsilons, np.logspace(-2, 1.5, 21))
    assert PRESETS["privpc-fig1"].runs() == 7 * 3 * 21 * 5
    assert PRESETS["privpc-fig1"].x_range == (1.0, 100.0)
    t4 = PRESETS["curate-table4"].spec
    assert t4.epsilons == (0.1, 5.0, 10.0) and t4.reps == 50 and t4.budget == "total"
    assert PRESETS["curate-fig5"].spec.epsilons == (1.0,)
    p = get_preset("privpc-table3", datasets=("sachs",))
    pts = paper_points(p.spec)
    assert {(r["algorithm"], r["metric"], r["value"]) for r in pts} == {
        ("priv-pc", "n_ci_tests", 165.0), ("em-pc", "n_ci_tests", 1224.0), ("priv-pc", "seconds", 16.65),
        ("em-pc", "seconds", 4858.42)}
    assert paper_points(get_preset("curate-fig5").spec) == []  # total budgets: not the paper's setting
    with pytest.raises(UserError):
        get_preset("fig99")


def test_cli_sweep_writes_the_table(tmp_path, capsys):
    out = tmp_path / "r.csv"
    rc = main(["sweep", "--dataset", "asia", "--n", "20000", "--algos", "pc,svt-pc", "--epsilons", "logspace:-1:1:3",
               "--reps", "2", "--seed", "7", "--out", str(out), "--quiet"])
    assert rc == 0
    df = read_table(out)
    assert len(df) == 1 + 3 * 2 and list(df.columns[:14]) == list(CONTRACT_COLUMNS)
    assert np.allclose(sorted(set(df.epsilon.dropna())), [0.1, 1.0, 10.0])


@pytest.mark.parametrize("argv,msg", [
    (["sweep", "--algos", "pc"], "--dataset"),
    (["sweep", "--dataset", "asia", "--algos", "pc,priv-pc", "--epsilons", "0,1"], "positive"),
    (["sweep", "--dataset", "asia", "--algos", "priv-pc", "--epsilons", "a,b"], "numbers separated"),
    (["sweep", "--dataset", "asia", "--algos", "priv-pc", "--epsilons", "logspace:1"], "logspace:START"),
    (["sweep", "--dataset", "asia", "--algos", "wat", "--epsilons", "1"], "unknown algorithm"),
    (["sweep", "--dataset", "asia", "--algos", "pc", "--backend", "dask"], "--scheduler"),
    (["sweep", "--preset", "nope"], "unknown preset"),
    (["sweep", "--dataset", "asia", "--algos", "pc", "--out", "r.txt"], ".csv or .parquet"),
    (["sweep", "--dataset", "asia", "--algos", "pc", "--jobs", "0"], "jobs"),
    (["sweep", "--dataset", "asia", "--algos", "pc", "--jobs", "1000"], "at most"),
    (["sweep", "--dataset", "asia", "--algos", "pc", "--jobs", "5000", "--backend", "dask", "--scheduler",
      "tcp://127.0.0.1:1"], "at most 1024"),
])
def test_cli_sweep_bad_input_exits_2(argv, msg, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err


def test_figures_draw_bands_references_and_paper_points(small_table):
    from cgdcore.viz import sweep as vs

    s = summarise(small_table, x="eps_basic")
    fig = vs.curves_figure(s, "skeleton_f1", "total ε, basic composition")
    names = {t.name for t in fig.data if t.showlegend is not False}
    assert {"priv-pc", "svt-pc", "em-pc", "pc (non-private)"} <= names
    bands = [t for t in fig.data if t.fill == "toself"]
    assert len(bands) == 3
    line = next(t for t in fig.data if t.name == "priv-pc" and t.mode == "lines+markers")
    sub = s[s.algorithm == "priv-pc"].sort_values("x")
    assert np.allclose(line.x, sub["x"]) and np.allclose(line.y, sub["skeleton_f1_mean"])
    assert fig.layout.xaxis.type == "log"
    paper = [{"dataset": "asia", "algorithm": "priv-pc", "epsilon": 0.5, "metric": "n_ci_tests", "value": 95.0}]
    tfig = vs.curves_figure(s, "n_ci_tests", "x", paper=paper)
    cross = [t for t in tfig.data if t.name == "paper: priv-pc"]
    assert len(cross) == 1 and cross[0].y[0] == 95.0
    assert cross[0].x[0] == pytest.approx(sub.loc[np.isclose(sub.epsilon, 0.5), "x"].iloc[0])
    clipped = vs.curves_figure(s, "skeleton_f1", "x", x_range=(1.0, 100.0))
    for t in clipped.data:
        if t.mode == "lines+markers":
            assert all(1.0 <= v <= 100.0 for v in t.x)
    from cgdcore.exports import figure_html

    html = figure_html(fig, "T")
    assert html.startswith("<html>") or "<html" in html[:200]
    assert "<title>T</title>" in html and "<script src=\"http" not in html
    bars = vs.bars_figure(s[s.epsilon_kind != "none"], "n_ci_tests")
    assert bars.layout.barmode == "group"
    # linking every pair: a dashed line per panel, a dash per group of bars, for the skeleton F1 only
    ep = {"asia": 0.4}
    assert [h.y0 for h in vs.curves_figure(s, "skeleton_f1", "x", every_pair=ep).layout.shapes
            if h.line.dash == "dash"] == [0.4]
    assert not [h for h in vs.curves_figure(s, "shd", "x", every_pair=ep).layout.shapes if h.line.dash == "dash"]
    named = [t for t in vs.curves_figure(s, "skeleton_f1", "x", every_pair=ep).data if t.name == vs.EVERY_PAIR_TEXT]
    assert len(named) == 1 and set(named[0].y) == {0.4}  # named in the legend, not by a label over the curves
    dash = [t for t in vs.bars_figure(s, "skeleton_f1", every_pair=ep).data if t.name == vs.EVERY_PAIR_TEXT]
    assert len(dash) == 1 and list(dash[0].x) == ["asia"] and list(dash[0].y) == [0.4]
    assert not [t for t in vs.bars_figure(s, "shd", every_pair=ep).data if t.name == vs.EVERY_PAIR_TEXT]


def test_sound_vs_paper_preset_shows_the_p_scale_cost():
    """The preset puts each central algorithm on the z scale beside its p-scale ("as in paper") version, all capped
    at the same total ε with a proven guarantee; on Sachs at ε = 1 the defaults beat the p-scale runs on average."""
    from cgdcore.experiments.presets import SOUND_VS_PAPER, get_preset

    p = get_preset("sound-vs-paper", n=(20_000,), reps=2, epsilons=(1.0,))
    assert p.spec.budget == "total" and set(p.spec.algorithms) == set(SOUND_VS_PAPER)
    t = run_sweep(p.spec)
    assert t["error"].isna().all() and (t["epsilon_total"] <= 1.0 + 1e-9).all() and t["guarantee"].all()
    on_p = t["algorithm"].str.endswith("[scale=p]")
    assert on_p.sum() == 8 and t.loc[~on_p, "skeleton_f1"].mean() > t.loc[on_p, "skeleton_f1"].mean() + 0.2


def test_sweep_charts_call_noleaks_dp_notears():
    import pandas as pd

    from cgdcore.viz import sweep as vs
    from cgdcore.discover import algo_label

    assert algo_label("noleaks") == "DP-NOTEARS (noleaks)" and algo_label("priv-pc") == "priv-pc"
    assert algo_label("noleaks[release=gradient]") == "DP-NOTEARS (noleaks[release=gradient])"
    summary = pd.DataFrame({"dataset": ["sachs"] * 2, "algorithm": ["noleaks"] * 2, "epsilon_kind": ["total"] * 2,
                            "epsilon": [1.0, 10.0], "x": [1.0, 10.0], "reps": [1, 1], "skeleton_f1_mean": [0.2, 0.5],
                            "skeleton_f1_std": [0.0, 0.0]})
    names = {t.name for t in vs.curves_figure(summary, "skeleton_f1", "ε").data if t.name}
    assert names == {"DP-NOTEARS (noleaks)"}
    assert {t.name for t in vs.bars_figure(summary, "skeleton_f1").data} == {"DP-NOTEARS (noleaks) (this build)"}


def test_a_run_without_a_guarantee_has_no_place_on_the_guaranteed_axis(small_table):
    """EM-PC has no guarantee (guarantee = 0, no guaranteed ε in its row): on the guaranteed-ε axis its points have no
    x, so no chart draws them there (the Trade-off page says why); on the requested-ε axis they are drawn."""
    from cgdcore.viz.sweep import curves_figure

    em = small_table[small_table.algorithm == "em-pc"]
    assert (em["guarantee"] == 0).all() and em["epsilon_total"].isna().all() and em["eps_basic"].notna().all()
    on_total = summarise(small_table, x="epsilon_total")
    assert on_total.loc[on_total.algorithm == "em-pc", "x"].isna().all()
    assert on_total.loc[on_total.algorithm == "priv-pc", "x"].notna().all()
    on_requested = summarise(small_table, x="epsilon")
    assert on_requested.loc[on_requested.algorithm == "em-pc", "x"].notna().all()
    drawn = {t.name for t in curves_figure(on_total, "skeleton_f1", "guaranteed ε").data}
    assert "priv-pc" in drawn and "em-pc" not in drawn
    assert "em-pc" in {t.name for t in curves_figure(on_requested, "skeleton_f1", "requested ε").data}


def test_an_f1_band_stays_between_zero_and_one():
    from cgdcore.viz.sweep import curves_figure

    summary = pd.DataFrame({"dataset": ["asia"] * 2, "n": [1000] * 2, "algorithm": ["priv-pc"] * 2,
                            "epsilon_kind": ["round"] * 2, "epsilon": [0.1, 1.0], "x": [0.1, 1.0],
                            "skeleton_f1_mean": [0.02, 0.99], "skeleton_f1_std": [0.1, 0.1], "reps": [3, 3]})
    band = next(t for t in curves_figure(summary, "skeleton_f1", "requested ε").data if t.fill == "toself")
    assert max(band.y) == 1.0 and min(band.y) == 0.0


def test_a_sweep_runs_its_private_algorithms_at_its_delta_and_says_which_protect_little():
    """SweepSpec.delta reaches every private run (and its re-run command); None keeps each algorithm's default. The
    δ helper of the Trade-off and Demo captions names each algorithm's δ and flags one above 1/n."""
    from ui.privacy import sweep_deltas

    spec = SweepSpec(datasets=("asia",), n=(2_000,), algorithms=("svt-pc", "curate", "pc"), epsilons=(2.0,), reps=1,
                     budget="total", delta=1e-3)
    table = run_sweep(spec)
    private = table[table.epsilon_kind != "none"]
    assert (private.delta_total == 1e-3).all()
    assert all("--delta 0.001" in command_for(config_of(r, spec)) for _, r in private.iterrows())
    deltas, weak = sweep_deltas(table)
    assert deltas == {"svt-pc": 1e-3, "curate": 1e-3}
    assert weak == [f"for {a}, δ = 0.001 is above 1/n = 0.0005: a mechanism that published one row in full would "
                    "meet it" for a in ("svt-pc", "curate")]
    default = run_sweep(SweepSpec(datasets=("asia",), n=(2_000,), algorithms=("svt-pc", "curate"), epsilons=(2.0,),
                                  reps=1, budget="total"))
    assert sweep_deltas(default) == ({"svt-pc": 1e-6, "curate": 1e-10}, [])
    with pytest.raises(UserError, match="delta must be strictly between 0 and 1"):
        SweepSpec(datasets=("asia",), algorithms=("svt-pc",), epsilons=(1.0,), delta=0.0).runs()
