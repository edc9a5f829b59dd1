"""The command-line contract: output shapes, error paths (exit 2, no traceback), start-up cost."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, cli, cli_process


run = cli  # in-process through main(argv); the process-level cases below use cli_process


def test_datasets_lists_all_networks_and_real_data():
    r = run("datasets")
    assert r.returncode == 0, r.stderr
    for name in ["asia", "alarm", "andes", "sachs", "sachs-cont", "adult", "synthetic"]:
        assert any(line.split()[0] == name for line in r.stdout.splitlines()[1:]), name
    js = json.loads(run("datasets", "--json").stdout)
    assert {d["name"] for d in js} >= {"asia", "child", "win95pts"}


def test_import_is_light_and_datasets_starts_fast():
    code = "import sys, cgdcore, cgdcore.pc, cgdcore.graph, cgdcore.metrics, cgdcore.discover, cgdcore.data; " \
           "print(any(m.split('.')[0] in ('streamlit', 'plotly', 'pyvis') for m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.stdout.strip() == "False", r.stderr
    r = cli_process("datasets")  # the whole process: its start-up time is measured in bench/startup.py
    assert r.returncode == 0 and "asia" in r.stdout


def test_process_exit_codes_and_no_traceback():
    """The interpreter's own exit status: 2 with a one-line message for a user mistake (argparse's and ours), 0 for
    a run; never a traceback."""
    for args, code in ((("discover", "--dataset", "asia", "--alpha", "2"), 2),
                       (("discover", "--dataset", "nope"), 2), (("discover", "--dataset", "asia", "--n", "500"), 0)):
        r = cli_process(*args)
        assert r.returncode == code, r.stderr
        assert "Traceback" not in r.stderr + r.stdout
        if code:
            assert r.stderr.startswith(("error:", "usage:")), r.stderr


def test_process_end_flushes_output_and_runs_exit_functions(tmp_path):
    """The CLI process ends without the interpreter's teardown only after flushing its output and running the exit
    functions, with the command's exit code; with another thread still running it exits the ordinary way."""
    mark = tmp_path / "ran"
    for extra, code in (("", 0), ("threading.Thread(target=time.sleep, args=(0.5,)).start(); ", 0)):
        script = (f"import atexit, sys, threading, time; atexit.register(lambda: open({str(mark)!r}, 'a').write('x')); "
                  f"{extra}sys.argv = ['cgdcore', 'discover', '--dataset', 'asia', '--n', '2000', '--json']; "
                  "from cgdcore.cli import run; run()")
        r = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=180)
        assert r.returncode == code, r.stderr
        assert json.loads(r.stdout)["dataset"] == "asia"  # the whole object, flushed
    assert mark.read_text() == "xx"
    r = subprocess.run([sys.executable, "-c", "import sys; sys.argv = ['cgdcore', 'discover', '--dataset', 'nope']; "
                        "from cgdcore.cli import run; run()"], cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert r.returncode == 2 and r.stderr.startswith("error:")


def test_discover_json_contract():
    r = run("discover", "--dataset", "asia", "--n", "20000", "--seed", "1", "--algo", "pc", "--ci-test", "g2",
            "--alpha", "0.01", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    for key in ["dataset", "n", "variables", "algorithm", "params", "edges", "truth", "metrics", "privacy",
                "n_ci_tests", "seconds"]:
        assert key in out
    assert out["dataset"] == "asia" and out["n"] == 20000 and out["algorithm"] == "pc"
    assert out["privacy"] is None
    assert set(out["metrics"]) >= {"skeleton_precision", "skeleton_recall", "skeleton_f1", "arc_f1", "shd"}
    assert len(out["truth"]["edges"]) == 8
    assert all(set(e) == {"source", "target", "directed"} for e in out["edges"])
    assert out["n_ci_tests"] == sum(out["tests_per_order"])
    assert out["metrics"]["skeleton_f1"] > 0.7


@pytest.mark.parametrize("test", ["kendall", "chi2", "g2", "fisherz"])
def test_discover_every_ci_test(test):
    r = run("discover", "--dataset", "cancer", "--n", "5000", "--ci-test", test, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["params"]["ci_test"] == test


def test_sample_then_discover_from_csv(tmp_path):
    out = tmp_path / "asia.csv"
    r = run("sample", "--dataset", "asia", "--n", "3000", "--seed", "0", "--out", str(out))
    assert r.returncode == 0, r.stderr
    lines = out.read_text().splitlines()
    assert lines[0].split(",") == ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
    assert len(lines) == 3001
    r = run("discover", "--data", str(out), "--algo", "pc", "--json")
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    assert js["n"] == 3000 and js["truth"] is None and js["metrics"] is None


def test_continuous_needs_bins_for_discrete_tests():
    r = run("discover", "--dataset", "sachs-cont", "--ci-test", "g2")
    assert r.returncode == 2 and "--bins" in r.stderr and "Traceback" not in r.stderr
    r = run("discover", "--dataset", "sachs-cont", "--ci-test", "g2", "--bins", "3", "--json")
    assert r.returncode == 0, r.stderr
    r = run("discover", "--dataset", "sachs-cont", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["params"]["ci_test"] == "fisherz"


BAD = [
    (["discover", "--dataset", "nosuch", "--n", "100"], "nosuch"),
    (["discover", "--dataset", "asia", "--n", "0"], "--n"),
    (["discover", "--dataset", "asia", "--n", "ten"], "--n"),
    (["discover", "--dataset", "asia", "--alpha", "1.5"], "alpha"),
    (["discover", "--dataset", "asia", "--alpha", "0"], "alpha"),
    (["discover", "--dataset", "asia", "--alpha", "nan"], "alpha"),
    (["discover", "--dataset", "asia", "--algo", "magic"], "magic"),
    (["discover", "--dataset", "asia", "--epsilon", "1"], "not private"),
    (["discover", "--dataset", "asia", "--max-order", "-1"], "max-order"),
    (["discover", "--dataset", "asia", "--ci-test", "foo"], "ci-test"),
    (["discover", "--data", "/nonexistent/file.csv"], "file.csv"),
    (["discover"], "--dataset"),
    (["sample", "--dataset", "asia", "--n", "10", "--out", "/nonexistent/dir/x.csv"], "x.csv"),
    (["frobnicate"], "frobnicate"),
    (["discover", "--dataset", "synthetic:d=1", "--n", "100"], "d"),
    (["discover", "--dataset", "asia:foo=1"], "foo"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "curate", "--epsilon", "0"], "> 0"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "curate", "--epsilon", "-1"], "> 0"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "curate", "--epsilon", "inf"], "finite"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "curate", "--epsilon", "nan"], "--epsilon"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "curate"], "--epsilon"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "priv-pc", "--delta", "1"], "delta"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "priv-pc", "--delta", "0"], "delta"),
    (["discover", "--dataset", "asia", "--n", "100", "--algo", "svt-pc"], "too few"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "priv-pc", "--ci-test", "g2"], "kendall"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "laplace-pc", "--round-epsilon", "1"],
     "--epsilon"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "svt-pc", "--subsample-ratio", "2"], "svt-pc"),
    (["discover", "--dataset", "asia", "--n", "5000", "--algo", "priv-pc", "--subsample-ratio", "50"], "20"),
    (["discover", "--dataset", "asia", "--tweak", "0.1"], "applies to --algo priv-pc"),
]


@pytest.mark.parametrize("args,needle", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_arguments_exit_2_with_message(args, needle):
    r = run(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert needle in r.stderr
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout


BAD_FILES = {
    "empty.csv": b"",
    "header_only.csv": b"a,b,c\n",
    "one_column.csv": b"a\n1\n2\n3\n",
    "latin1.csv": "a,b\ncaf\xe9,1\nb,2\n".encode("latin-1"),
    "duplicate.csv": b"a,a,b\n1,2,3\n4,5,6\n",
    "all_missing.csv": b"a,b,c\n1,,x\n2,,y\n3,,x\n",
    "ragged.csv": b"a,b,c\n1,2,3\n4,5\n6,7,8,9\n",
    "binary.csv": bytes(range(256)) * 4,
}


@pytest.mark.parametrize("fname", list(BAD_FILES))
def test_bad_files_exit_2(tmp_path, fname):
    p = tmp_path / fname
    p.write_bytes(BAD_FILES[fname])
    r = run("discover", "--data", str(p))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("error:") and "Traceback" not in r.stderr
    assert len(r.stderr.strip()) > 20


def test_too_many_categories_names_the_column(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    rows = ["id,colour,flag"] + [f"u{rng.integers(10_000)},c{rng.integers(3)},{rng.integers(2)}" for _ in range(3000)]
    p = tmp_path / "many.csv"
    p.write_text("\n".join(rows))
    r = run("discover", "--data", str(p), "--ci-test", "g2")
    assert r.returncode == 2 and "id" in r.stderr and "64" in r.stderr, r.stderr


@pytest.mark.parametrize("algo,flags", [
    ("laplace-pc", ["--epsilon", "5"]), ("svt-pc", ["--round-epsilon", "1"]),
    ("priv-pc", ["--round-epsilon", "1", "--epsilon", "8"]), ("em-pc", ["--round-epsilon", "1"]),
    ("curate", ["--epsilon", "5"]),
])
def test_private_discover_json_has_the_privacy_object(algo, flags):
    r = run("discover", "--dataset", "sachs", "--n", "20000", "--algo", algo, *flags, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    pv = out["privacy"]
    assert out["algorithm"] == algo
    assert {"epsilon", "delta", "accounting", "releases", "used", "statement", "guarantee", "noise"} <= set(pv)
    assert {"guarantee" if algo != "em-pc" else "guarantee if proven", "basic", "advanced"} <= set(pv["accounting"])
    assert [k for k, v in pv["accounting"].items() if v["valid"]] == ([] if algo == "em-pc" else ["guarantee"])
    if algo == "em-pc":  # no guarantee: no (ε, δ) stated, the ledger's numbers kept and marked
        assert pv["guarantee"] is False and pv["epsilon"] is None and pv["delta"] is None
        assert pv["statement"].startswith("No privacy guarantee") and pv["run_delta"] > 0
    else:
        assert pv["guarantee"] is True and pv["used"]["epsilon"] <= pv["epsilon"] + 1e-9
    assert pv["accounting"]["basic"]["epsilon"] >= pv["used"]["epsilon"] - 1e-9
    # what of the output comes from the exact data is named: the run's time, and the sparse vector's noisy values
    what = out["diagnostics"]["what"]
    assert "'seconds'" in what and "timing side channel" in what
    assert "'noisy' and 'threshold'" in what and "(svt, sieve)" in what
    assert out["params"]["noise_seed"] is None and pv["noise"]["reproducible"] is False
    if "--epsilon" in flags:
        assert pv["epsilon"] == float(flags[flags.index("--epsilon") + 1])


def test_private_discover_text_output_names_the_rules():
    r = run("discover", "--dataset", "sachs", "--n", "20000", "--algo", "priv-pc", "--round-epsilon", "1",
            "--epsilon", "4")
    assert r.returncode == 0, r.stderr
    assert "privacy: (ε = 4, δ = 1e-06)-differentially private" in r.stdout and "advanced" in r.stdout
    assert "[guarantee]" in r.stdout and "[realised]" in r.stdout and "[as in paper]" in r.stdout
    assert "stopped early" in r.stdout


@pytest.mark.parametrize("algo,flags,said", [
    ("svt-pc", ["--epsilon", "5", "--delta", "1e-3"], "Formally true, but δ = 0.001 is above 1/n = 0.0005"),  # the
    # paper's δ at n = 2,000
    ("svt-pc", ["--epsilon", "5"], None),  # the default δ = 1e-6 < 1/n
    ("gauss-pc", ["--epsilon", "1"], None),  # δ = 1e-6 < 1/n, ε ≤ 10: nothing to add
    ("gauss-pc", ["--epsilon", "20"], "Formally true, but at ε = 20 the odds of any inference about one person"),
])
def test_the_text_output_says_when_a_guarantee_protects_little(algo, flags, said):
    """The app flagged ε above 10 and δ above 1/n beside the statement; the command line printed the statement
    alone."""
    r = run("discover", "--dataset", "asia", "--n", "2000", "--algo", algo, *flags, "--noise-seed", "1")
    assert r.returncode == 0, r.stderr
    assert ("Formally true" in r.stdout) == (said is not None) and (said is None or said in r.stdout), r.stdout
    assert "the filter used ε=" in r.stdout and "not a guarantee\n" not in r.stdout


def test_a_run_without_a_guarantee_does_not_say_the_filter_used_part_of_it():
    r = run("discover", "--dataset", "asia", "--n", "2000", "--algo", "em-pc", "--round-epsilon", "1")
    assert r.returncode == 0, r.stderr
    assert "privacy: No privacy guarantee" in r.stdout and "of it" not in r.stdout and "Formally true" not in r.stdout
    assert "  the ledger recorded ε=" in r.stdout and "(advanced rule): not a guarantee" in r.stdout


def test_a_private_run_on_a_file_with_dropped_rows_says_the_dropping_is_not_covered(tmp_path):
    """Which rows have a missing value, and how many, come from the file itself: dropping them is not covered by a
    guarantee for the rows kept (their count was shown beside the private result with no word)."""
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 3000)
    b = np.where(rng.random(3000) < 0.8, a, 1 - a)
    rows = [[f"x{u}", f"y{v}"] for u, v in zip(a, b)]
    rows[5][1] = ""
    path = tmp_path / "gaps.csv"
    path.write_text("a,b\n" + "\n".join(",".join(r) for r in rows) + "\n")
    said = "the rows dropped for missing values (which ones, and how many) are read from the file itself"
    for algo, private in (("laplace-pc", True), ("pc", False)):
        r = run("discover", "--data", str(path), "--algo", algo, *(["--epsilon", "5"] if private else []))
        assert r.returncode == 0, r.stderr
        assert "note: dropped 1 of 3,000 rows with missing values" in r.stdout
        assert (said in r.stdout) == private, r.stdout


def test_privatize_and_discover_with_local_privacy(tmp_path):
    out = tmp_path / "p.csv"
    r = run("privatize", "--dataset", "asia", "--n", "3000", "--mechanism", "krr-cwise", "--p-max", "0.5",
            "--seed", "1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "true ε-LDP" in r.stderr and out.read_text().count("\n") == 3001
    r = run("discover", "--dataset", "asia", "--n", "5000", "--ldp", "krr-cwise", "--ldp-pmax", "0.5", "--debias",
            "--json")
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    assert js["privacy"]["model"] == "local" and js["params"]["debias"] == "invert"


@pytest.mark.parametrize("args,needle", [
    (["--ldp", "krr-cwise", "--ldp-epsilon", "0"], "must be > 0"),
    (["--ldp", "krr-cwise", "--ldp-pmax", "0.001"], "p_max must lie strictly between"),
    (["--ldp", "geo-comb", "--ldp-pmax", "0.1", "--debias"], "de-biasing is not available"),
    (["--debias"], "need --ldp"),
    (["--ldp", "krr-cwise"], "exactly one privacy parameter"),
])
def test_local_privacy_bad_input_exits_2(args, needle):
    r = run("discover", "--dataset", "asia", "--n", "2000", *args)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_fhe_pc_json_and_text():
    r = run("discover", "--dataset", "asia", "--n", "5000", "--algo", "fhe-pc", "--fhe-mode", "aggregate",
            "--max-order", "1", "--json")
    assert r.returncode == 0, r.stderr
    js = json.loads(r.stdout)
    assert js["fhe"]["agreement"] == 1.0 and js["fhe"]["shd_vs_plaintext"] == 0
    assert js["privacy"]["model"] == "encrypted" and js["privacy"]["epsilon"] is None
    assert js["fhe"]["ckks_params"]["security_bits"] == 128
    r = run("discover", "--dataset", "asia", "--n", "5000", "--algo", "fhe-pc", "--fhe-dp", "once", "--epsilon", "1",
            "--owners", "4")
    assert r.returncode == 0, r.stderr
    assert "(ε = 1)-differentially private" in r.stdout and "federation: 4 owners" in r.stdout
    assert "(1 release, basic rule)" in r.stdout
    # the comparisons with plaintext come from the exact counts: one labelled line, not beside the private result
    assert "diagnostics (computed from the exact data, not covered by ε): CI decisions agree with plaintext" in r.stdout
    assert "agree" not in next(line for line in r.stdout.splitlines() if line.startswith("federation:"))
    assert "computed from the exact data, not covered by ε" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["--algo", "fhe-pc", "--owners", "1"], "between 2 and 10"),
    (["--algo", "fhe-pc", "--epsilon", "1"], "add --fhe-dp"),
    (["--algo", "fhe-pc", "--fhe-dp", "once", "--epsilon", "-1"], "must be > 0"),
    (["--algo", "fhe-pc", "--ci-test", "kendall"], "g2 or chi2"),
    (["--algo", "pc", "--owners", "3"], "applies to --algo fhe-pc"),
    (["--algo", "fhe-pc", "--key-holder", "5"], "key holder"),
    (["--algo", "fhe-pc", "--fhe-mode", "paper", "--nr-iterations", "40"], "iterations"),
])
def test_fhe_bad_input_exits_2(args, needle):
    r = run("discover", "--dataset", "asia", "--n", "2000", *args)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_shown_command_names_kendalls_sidedness_only_for_kendalls_test():
    """The command a result shows repeats the run with only the flags that matter to it: ``--kendall-sided`` for a
    Kendall test (or an algorithm whose test is Kendall's by default), never for a G-test."""
    from cgdcore.cli import command_line

    base = {"algo": "pc", "alpha": 0.05, "kendall_sided": "two", "max_order": 2}
    g2 = command_line("asia", 2000, {**base, "ci_test": "g2"}, data_seed=0)
    assert "--ci-test g2" in g2 and "--kendall-sided" not in g2
    assert "--kendall-sided two" in command_line("asia", 2000, {**base, "ci_test": "kendall"}, data_seed=0)
    assert "--kendall-sided one" in command_line("asia", 2000, {**base, "algo": "priv-pc", "kendall_sided": "one"})
    # the shorter command makes the same run
    out = json.loads(cli(*g2.split()[3:], "--json").stdout)
    ref = json.loads(cli(*g2.split()[3:], "--kendall-sided", "two", "--json").stdout)
    assert out["edges"] == ref["edges"] and out["n_ci_tests"] == ref["n_ci_tests"]


def test_privatize_noise_is_fresh_unless_noise_seed_fixes_it(tmp_path):
    """privatize seeded its noise with --seed, 0 by default: two runs were byte-identical and default_rng(0) rebuilt
    every draw, so the true records could be read back. The noise is fresh unless --noise-seed fixes it, and then
    the run prints discover's fixed-seed caveat; --seed only samples a bundled dataset."""
    from cgdcore.privacy import FIXED_SEED_NOTE, PRNG_NOTE

    src = tmp_path / "mine.csv"
    src.write_text("diag,smoker\n" + "".join(f"{('flu', 'cold')[i % 2]},{('yes', 'no')[i % 3 == 0]}\n"
                                             for i in range(400)))
    outs = []
    for i, extra in enumerate([[], [], ["--noise-seed", "3"], ["--noise-seed", "3"], ["--seed", "0"]]):
        out = tmp_path / f"p{i}.csv"
        r = run("privatize", "--data", str(src), "--mechanism", "krr-cwise", "--epsilon", "1", "--out", str(out),
                *extra)
        assert r.returncode == 0, r.stderr
        assert f"noise: {FIXED_SEED_NOTE if extra[:1] == ['--noise-seed'] else PRNG_NOTE}" in r.stderr, r.stderr
        outs.append(out.read_text())
    assert outs[0] != outs[1] and outs[2] == outs[3] and outs[4] not in (outs[0], outs[1])
    assert "--seed samples the rows of a bundled dataset" in r.stderr and "--noise-seed fixes it" in r.stderr
    # --seed still samples a bundled dataset's rows: the same rows, fresh noise
    a, b = (run("privatize", "--dataset", "asia", "--n", "300", "--seed", "1", "--mechanism", "krr-cwise",
                "--epsilon", "2", "--codes", "--out", "-") for _ in range(2))
    assert a.returncode == b.returncode == 0 and a.stdout != b.stdout
    r = run("privatize", "--help")
    assert "--noise-seed" in r.stdout and "not of the noise" in r.stdout
    # discover --ldp-seed falls back to --noise-seed (fresh), as its help now says
    r = run("discover", "--help")
    assert "(default: --noise-seed" in " ".join(r.stdout.split()) and "(default: --seed)" not in r.stdout


@pytest.mark.parametrize("extra, note", [([], "PRNG_NOTE"), (["--noise-seed", "4"], "FIXED_SEED_NOTE"),
                                         (["--ldp-seed", "4"], "FIXED_SEED_NOTE")])
def test_discover_with_local_privacy_says_how_its_noise_was_seeded(extra, note):
    """A local run said nothing of its privatisation's seed: a fixed one, a reproducible demo, read as private.
    It now says it as central runs do, in the text and in the JSON's privacy object."""
    from cgdcore import privacy

    argv = ["discover", "--dataset", "asia", "--n", "300", "--ldp", "krr-cwise", "--ldp-epsilon", "1", *extra]
    r = run(*argv)
    assert r.returncode == 0 and f"  noise: {getattr(privacy, note)}" in r.stdout, r.stdout
    noise = json.loads(run(*argv, "--json").stdout)["privacy"]["noise"]
    assert noise == privacy.noise_info(4 if extra else None)


def test_local_privacy_on_a_file_says_its_categories_are_taken_as_public(tmp_path):
    """privatize and discover --ldp on a CSV whose one 'HIV' row sits among flu and cold claimed "true ε-LDP per
    record 1": a neighbour whose record is 'flu' can never report 'HIV'. Where the guarantee is stated (the text
    summary, the JSON privacy object and notes) it now says it holds only for categories taken as public; a bundled
    dataset, whose schema is public, says nothing of the kind."""
    from cgdcore.privacy import PUBLIC_CATEGORIES_NOTE

    src = tmp_path / "mine.csv"
    src.write_text("diag,smoker\nHIV,no\n" + "".join(f"{('flu', 'cold')[i % 2]},{('yes', 'no')[i % 3 == 0]}\n"
                                                     for i in range(199)))
    r = run("privatize", "--data", str(src), "--mechanism", "krr-cwise", "--epsilon", "1", "--out", "-")
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stderr.splitlines() if "true ε-LDP per record" in x)
    assert "true ε-LDP per record 1 only if the categories are a public schema" in line, r.stderr
    assert PUBLIC_CATEGORIES_NOTE in r.stderr
    r = run("discover", "--data", str(src), "--ldp", "krr-cwise", "--ldp-epsilon", "1")
    assert r.returncode == 0 and "only if the categories are a public schema" in r.stdout, r.stdout + r.stderr
    r = run("discover", "--data", str(src), "--ldp", "krr-cwise", "--ldp-epsilon", "1", "--json")
    js = json.loads(r.stdout)
    assert js["privacy"]["schema"] == PUBLIC_CATEGORIES_NOTE and PUBLIC_CATEGORIES_NOTE in js["notes"]
    assert js["privacy"]["rule"] == "true ε-LDP of the channel, if the categories are a public schema"
    r = run("privatize", "--dataset", "asia", "--n", "300", "--mechanism", "krr-cwise", "--epsilon", "1", "--out", "-")
    assert r.returncode == 0 and "public schema" not in r.stderr and PUBLIC_CATEGORIES_NOTE not in r.stderr
    r = run("discover", "--dataset", "asia", "--n", "300", "--ldp", "krr-cwise", "--ldp-epsilon", "1", "--json")
    js = json.loads(r.stdout)
    assert "schema" not in js["privacy"] and PUBLIC_CATEGORIES_NOTE not in js["notes"]
