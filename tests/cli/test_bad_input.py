"""Bad input everywhere a user can type or upload, through the CLI and through the app.

The same matrix runs in both: empty / header-only / garbage / non-UTF-8 / oversized CSVs, a single column, a
10,000-category column, a NaN-only column, ε ∈ {0, −1, nan, inf, 1e300}, δ ∈ {0, 1}, n = 1, α outside (0, 1)
and a maximum order larger than the data allow.

CLI: every case exits with code 2 and one message on stderr that names the problem; never a traceback.
App: no exception reaches the page, a specific st.error / st.warning is shown, and after a good value the page
produces its result again. The app's widgets bound most values already (number inputs have a min and max,
α and δ are chosen from fixed options); a bad value can still arrive through the URL (every setting lives in
it), where Streamlit drops it silently, so the pages say which link settings they refused.
"""
import random
import re
import string
import tomllib

import numpy as np
import pytest

from conftest import Lazy, ROOT, cli, shown

AppTest = Lazy("streamlit.testing.v1", "AppTest")
pytestmark = pytest.mark.usefixtures("apptest_start_up_once")  # tests/conftest.py

APP = str(ROOT / "app.py")
EPS_BAD = ["0", "-1", "nan", "inf", "1e300"]
DELTA_BAD = ["0", "1"]
ALPHA_BAD = ["0", "1", "-0.5", "1.5"]


# ============================================================================ files

def _many_categories() -> bytes:
    rng = np.random.default_rng(0)
    rows = [f"u{i % 10_000},{rng.integers(3)},{rng.integers(2)}" for i in range(20_000)]
    return ("id,x,y\n" + "\n".join(rows) + "\n").encode()


def _nan_column() -> bytes:
    rng = np.random.default_rng(1)
    return ("a,b,c\n" + "".join(f"{rng.integers(3)},NaN,{rng.integers(2)}\n" for _ in range(200))).encode()


def _garbage_text() -> bytes:
    r = random.Random(0)  # printable noise with \r, \x0b, \x0c inside the first line: once an internal error
    return "".join(r.choice(string.printable) for _ in range(5000)).encode()


def _write(path, name):
    """Write bad file ``name`` to ``path`` (huge ones are generated here, not stored)."""
    if name == "huge_bytes":  # over MAX_BYTES (200 MB): a sparse file, so the test writes almost nothing
        with open(path, "wb") as f:
            f.truncate(201 * 2**20)
    elif name == "huge_rows":  # over MAX_ROWS (2,000,000): 8 MB
        with open(path, "wb") as f:
            f.write(b"a,b\n" + b"1,0\n" * 2_000_001)
    else:
        path.write_bytes(FILES[name][0]())


# name -> (bytes factory, regex the message must match). huge_* are written by _write.
FILES = {
    "empty": (lambda: b"", r"the file is empty"),
    "header_only": (lambda: b"a,b,c\n", r"header but no data rows"),
    "garbage_binary": (lambda: np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes(),
                       r"binary, not CSV text|not UTF-8"),
    "garbage_text": (_garbage_text, r"only one column|malformed CSV"),
    "latin1": (lambda: "a,b\ncafé,1\nthé,2\n".encode("latin-1"), r"not UTF-8 text: byte 0xe9 on line 2"),
    "utf16": (lambda: "a,b\n1,2\n3,4\n".encode("utf-16"), r"UTF-16"),
    "huge_bytes": (None, r"201\.0 MB, over the 200 MB limit"),
    "huge_rows": (None, r"2,000,001 rows, over the limit of 2,000,000"),
    "huge_columns": (lambda: (",".join(f"c{i}" for i in range(101)) + "\n" + ",".join("1" * 101) + "\n").encode(),
                     r"101 columns, over the limit of 100"),
    "single_column": (lambda: b"a\n1\n2\n3\n", r"only one column \('a'\)"),
    "many_categories": (_many_categories, r"column 'id' has 10,000 categories"),
    "nan_only_column": (_nan_column, r"column 'b' has no values"),
    "one_row": (lambda: b"a,b,c\n1,2,0\n", r"only 1 row;"),
}


def run(*args, timeout=180):
    return cli(*args)  # in-process through main(argv); test_cli.py keeps the process-level cases


def assert_clean_failure(r, pattern):
    """Exit code 2, a message on stderr matching ``pattern``, no traceback anywhere."""
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-1500:])
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("error:"), r.stderr
    assert re.search(pattern, last), f"{pattern!r} not in {last!r}"
    assert len(last) < 600, "one message, not a dump"


# ============================================================================ CLI

FILE_COMMANDS = {
    "pc": ["discover"],
    "ldp": ["discover", "--ldp", "krr-cwise", "--ldp-epsilon", "2"],
    "fhe-pc": ["discover", "--algo", "fhe-pc", "--fhe-mode", "aggregate"],
    "privatize": ["privatize", "--mechanism", "krr-cwise", "--epsilon", "2", "--out", "-"],
}


@pytest.mark.parametrize("command", list(FILE_COMMANDS))
@pytest.mark.parametrize("name", list(FILES))
def test_cli_bad_file(tmp_path, name, command):
    path = tmp_path / f"{name}.csv"
    _write(path, name)
    argv = FILE_COMMANDS[command]
    r = run(argv[0], "--data", str(path), *argv[1:])
    pattern = FILES[name][1]
    if command == "privatize" and name in ("one_row", "single_column"):
        # not discovery: one column is a valid table, but its numbers need a public range before privatising
        pattern = r"public range.*--ranges a=LOW:HIGH"
    assert_clean_failure(r, pattern)


ASIA = ["discover", "--dataset", "asia", "--n", "2000"]
# where a user types ε: command prefix, then the flag that takes the value
EPS_PATHS = {
    "curate": (ASIA + ["--algo", "curate"], "--epsilon"),
    "laplace-pc": (ASIA + ["--algo", "laplace-pc"], "--epsilon"),
    "priv-pc round": (ASIA + ["--algo", "priv-pc"], "--round-epsilon"),
    "svt-pc cap": (ASIA + ["--algo", "svt-pc", "--round-epsilon", "1"], "--epsilon"),
    "noleaks": (["discover", "--dataset", "synthetic", "--n", "500", "--algo", "noleaks"], "--epsilon"),
    "curate-score": (["discover", "--dataset", "synthetic", "--n", "500", "--algo", "curate-score"], "--epsilon"),
    "ldp": (ASIA + ["--ldp", "krr-cwise"], "--ldp-epsilon"),
    "fhe-pc dp": (ASIA + ["--algo", "fhe-pc", "--fhe-dp", "once"], "--epsilon"),
    "privatize": (["privatize", "--dataset", "asia", "--n", "2000", "--mechanism", "krr-cwise", "--out", "-"],
                  "--epsilon"),
    "sweep": (["sweep", "--dataset", "asia", "--n", "2000", "--algos", "priv-pc", "--reps", "1", "--quiet"],
              "--epsilons"),
}
# ε = inf and 1e300 are refused too: DESIGN.md says no privacy is the non-private 'pc', and above 1e6 no noise is
# left (e^ε overflows past ~709), so a huge ε would only pretend to be private.
EPS_MESSAGE = {"0": r"> 0|positive", "-1": r"> 0|positive", "nan": r"(?i)nan", "inf": r"finite",
               "1e300": r"≤ 1e6"}


@pytest.mark.parametrize("value", EPS_BAD)
@pytest.mark.parametrize("path", list(EPS_PATHS))
def test_cli_bad_epsilon(path, value):
    prefix, flag = EPS_PATHS[path]
    r = run(*prefix, f"{flag}={value}")
    assert_clean_failure(r, EPS_MESSAGE[value])
    assert re.search(r"ε|(?i:epsilon)", r.stderr.strip().splitlines()[-1]), r.stderr


DELTA_PATHS = {
    "priv-pc": ASIA + ["--algo", "priv-pc", "--round-epsilon", "1"],
    "laplace-pc": ASIA + ["--algo", "laplace-pc", "--epsilon", "5"],
    "curate": ASIA + ["--algo", "curate", "--epsilon", "5"],
    "noleaks": ["discover", "--dataset", "synthetic", "--n", "500", "--algo", "noleaks", "--epsilon", "1"],
    "fhe-pc dp": ASIA + ["--algo", "fhe-pc", "--fhe-dp", "once", "--epsilon", "1"],
}


@pytest.mark.parametrize("value", DELTA_BAD)
@pytest.mark.parametrize("path", list(DELTA_PATHS))
def test_cli_bad_delta(path, value):
    r = run(*DELTA_PATHS[path], "--delta", value)
    assert_clean_failure(r, r"delta must be strictly between 0 and 1")


N_ONE = {
    "pc": ["discover", "--dataset", "asia", "--n", "1"],
    "priv-pc": ["discover", "--dataset", "asia", "--n", "1", "--algo", "priv-pc", "--round-epsilon", "1"],
    "notears": ["discover", "--dataset", "synthetic", "--n", "1", "--algo", "notears"],
    "ldp": ["discover", "--dataset", "asia", "--n", "1", "--ldp", "krr-cwise", "--ldp-epsilon", "2"],
    "fhe-pc": ["discover", "--dataset", "asia", "--n", "1", "--algo", "fhe-pc", "--fhe-mode", "aggregate"],
    "sample": ["sample", "--dataset", "asia", "--n", "1", "--out", "-"],
    "sweep": ["sweep", "--dataset", "asia", "--n", "1", "--algos", "priv-pc", "--epsilons", "1", "--quiet"],
}


@pytest.mark.parametrize("path", list(N_ONE))
def test_cli_n_equals_one(path):
    r = run(*N_ONE[path])
    assert_clean_failure(r, r"n=1 is out of range|n must be at least 5 rows; got 1")


ALPHA_PATHS = {
    "pc": ASIA,
    "priv-pc": ASIA + ["--algo", "priv-pc", "--round-epsilon", "1"],
    "ldp debias": ASIA + ["--ldp", "krr-cwise", "--ldp-pmax", "0.5", "--debias"],
    "fhe-pc": ASIA + ["--algo", "fhe-pc", "--fhe-mode", "aggregate"],
    "sweep": ["sweep", "--dataset", "asia", "--n", "2000", "--algos", "priv-pc", "--epsilons", "1", "--quiet"],
}


@pytest.mark.parametrize("value", ALPHA_BAD)
@pytest.mark.parametrize("path", list(ALPHA_PATHS))
def test_cli_bad_alpha(path, value):
    r = run(*ALPHA_PATHS[path], f"--alpha={value}")
    assert_clean_failure(r, r"--alpha must be strictly between 0 and 1")


MAX_ORDER_PATHS = {
    "pc": ASIA + ["--json"],
    "priv-pc": ASIA + ["--algo", "priv-pc", "--round-epsilon", "1", "--json"],
    "ldp debias": ASIA + ["--ldp", "krr-cwise", "--ldp-pmax", "0.5", "--debias", "--calibration", "neff", "--json"],
    "fhe-pc": ASIA + ["--algo", "fhe-pc", "--fhe-mode", "aggregate", "--json"],
}


@pytest.mark.parametrize("path", list(MAX_ORDER_PATHS))
def test_cli_max_order_larger_than_d_is_capped_and_said(path):
    """Not an error, by design: no conditioning set has more than d − 2 members, so a larger limit is the same
    run as d − 2 (a sweep over datasets of different sizes relies on that). The run says what it used."""
    import json

    r = run(*MAX_ORDER_PATHS[path], "--max-order", "50")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["params"]["max_order"] == 6
    assert any("maximum order 50 is more than 8 variables allow" in n and "PC used 6" in n for n in out["notes"])


def test_cli_sweep_max_order_larger_than_d_runs():
    r = run("sweep", "--dataset", "asia", "--n", "2000", "--algos", "priv-pc", "--epsilons", "1", "--reps", "1",
            "--max-order", "50", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "rejected" not in r.stderr


def test_cli_many_categories_refused_for_continuous_algorithms_too(tmp_path):
    """It ran before: Fisher-z and NOTEARS read the codes of 10,000 unordered labels as numbers."""
    path = tmp_path / "ids.csv"
    _write(path, "many_categories")
    for extra in ([], ["--ci-test", "fisherz"], ["--ci-test", "kendall"], ["--algo", "notears"]):
        assert_clean_failure(run("discover", "--data", str(path), *extra), r"column 'id' has 10,000 categories")


def test_cli_old_mac_line_ends_are_read(tmp_path):
    """CR-only line ends (old Excel for Mac) crashed the header reader with an internal error."""
    path = tmp_path / "mac.csv"
    path.write_bytes(b"a,b\r" + b"".join(f"{i % 3},{i % 2}\r".encode() for i in range(50)))
    r = run("discover", "--data", str(path), "--json")
    assert r.returncode == 0, r.stderr
    assert '"n": 50' in r.stdout


# ============================================================================ app

def test_app_hides_error_details():
    """A traceback never reaches the page, even for a bug nobody caught."""
    cfg = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert cfg["client"]["showErrorDetails"] in ("none", False)


def app(timeout=180):
    from conftest import following_reopened_links

    return following_reopened_links(AppTest.from_file(APP, default_timeout=timeout))


def no_exception(at):
    assert not at.exception, [e.message for e in at.exception]


def _upload(at, name, data):
    at.sidebar.file_uploader(key="upload").set_value((name, data, "text/csv")).run()


def _good_csv() -> bytes:
    rows = ["age,sex,edu"] + [f"{['young', 'adult', 'old'][i % 3]},{['M', 'F'][(i // 3) % 2]},"
                              f"{['high', 'uni'][(i * 7 // 5) % 2]}" for i in range(600)]
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("name", list(FILES))
def test_app_bad_upload_is_explained_and_a_good_one_runs(name, tmp_path, monkeypatch):
    at = app()
    at.query_params["src"] = "Upload a CSV"
    at.run()
    no_exception(at)
    if name == "huge_bytes":
        # The browser's uploader refuses files over server.maxUploadSize (200 MB, the loader's own limit) before
        # the page sees them; lower the loader's limit to check what the page says when a file is too big.
        from cgdcore.data import tabular

        monkeypatch.setattr(tabular, "MAX_BYTES", 4 * 2**20)
        data = b"a,b\n" + b"1,0\n" * (5 * 2**18)
        pattern = r"5\.0 MB, over the 4 MB limit"
    else:
        path = tmp_path / f"{name}.csv"
        _write(path, name)
        data = path.read_bytes()
        pattern = FILES[name][1]
    _upload(at, f"{name}.csv", data)
    no_exception(at)
    errors = [shown(e.value) for e in at.error]
    assert any(re.search(pattern, e) for e in errors), errors
    assert "discovery" not in at.session_state or at.session_state["discovery"].dataset.name != f"{name}.csv"
    assert not [i.value for i in at.info if "needs discrete data" in i.value]  # no word on how a refused file is binned
    _upload(at, "survey.csv", _good_csv())
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["discovery"].dataset.name == "survey.csv"
    assert any(m.label == "Learned edges" for m in at.metric)


def _refused(at, key, value):
    """The page says that the link's ``key=value`` was ignored."""
    warnings = [w.value for w in at.warning]
    assert any("ignored" in w and f"`{key}={value}`" in w for w in warnings), warnings


# (page, base query params, key, bad values, how to set a good value, check that the result is there)
def _discover_done(budget=None):
    def check(at):
        res = at.session_state["discovery"]
        if budget is not None:
            assert res.privacy["budget"] == budget
        assert any(m.label == "Skeleton F1" for m in at.metric)
    return check


PER_ROUND = "per-round ε (as in paper)"
URL_CASES = [
    # Discover: total ε (curate), per-round ε (priv-pc), δ, α, n
    ("pages/discover.py", {"algo": "curate", "n": "5000"}, "eps", EPS_BAD, ("number_input", 5.0),
     _discover_done(budget=5.0)),
    ("pages/discover.py", {"algo": "priv-pc", "n": "5000", "budget_mode": PER_ROUND}, "reps", EPS_BAD,
     ("number_input", 2.0), _discover_done()),
    ("pages/discover.py", {"algo": "priv-pc", "n": "5000", "budget_mode": PER_ROUND, "capped": "true"}, "eps_cap",
     EPS_BAD, ("number_input", 8.0), _discover_done(budget=8.0)),
    ("pages/discover.py", {"algo": "svt-pc", "n": "5000"}, "eps", EPS_BAD, ("number_input", 4.0),
     _discover_done(budget=4.0)),
    ("pages/discover.py", {"algo": "priv-pc", "n": "5000"}, "delta_priv-pc", DELTA_BAD, ("select_slider", 1e-4),
     _discover_done()),
    ("pages/discover.py", {"n": "5000"}, "alpha", ALPHA_BAD, ("select_slider", 0.01), _discover_done()),
    ("pages/discover.py", {}, "n", ["1"], ("number_input", 3000), _discover_done()),
    ("pages/discover.py", {}, "maxord", ["50"], ("selectbox", "2"), _discover_done()),
    # Local privacy: ε, α, n, maximum order
    ("pages/local.py", {"lscen": "Asia network (8 binary variables)", "ln": "2000", "lmode": "ε", "lcal": "neff"},
     "leps", EPS_BAD, ("number_input", 5.0), lambda at: _local_done(at)),
    ("pages/local.py", {"lscen": "Asia network (8 binary variables)", "ln": "2000", "lcal": "neff"}, "lalpha",
     ALPHA_BAD, ("select_slider", 0.05), lambda at: _local_done(at)),
    ("pages/local.py", {"lscen": "Asia network (8 binary variables)", "lcal": "neff"}, "ln", ["1"],
     ("number_input", 2000), lambda at: _local_done(at)),
    ("pages/local.py", {"lscen": "Asia network (8 binary variables)", "ln": "2000", "lcal": "neff"}, "lmaxo", ["50"],
     ("number_input", 2), lambda at: _local_done(at)),
    # Encrypted: ε of the DP variant, α, n, maximum order
    ("pages/encrypted.py", {"fdp": "once", "fn": "2000", "fnet": "cancer"}, "feps", EPS_BAD, ("number_input", 2.0),
     lambda at: _encrypted_done(at, dp=True)),
    ("pages/encrypted.py", {"fmode": "aggregate", "fn": "2000", "fnet": "cancer"}, "falpha", ALPHA_BAD,
     ("select_slider", 0.1), lambda at: _encrypted_done(at)),
    ("pages/encrypted.py", {"fmode": "aggregate", "fnet": "cancer"}, "fn", ["1"], ("number_input", 2000),
     lambda at: _encrypted_done(at)),
    ("pages/encrypted.py", {"fmode": "aggregate", "fn": "2000", "fnet": "cancer"}, "fmaxo", ["50"],
     ("number_input", 1), lambda at: _encrypted_done(at)),
    # Budget: CURATE's total ε, Priv-PC's per-round ε, n
    ("pages/budget.py", {"bds": "asia", "bn": "5000"}, "beps", EPS_BAD, ("number_input", 5.0),
     lambda at: _budget_done(at)),
    ("pages/budget.py", {"bds": "asia", "bn": "5000"}, "breps", EPS_BAD, ("number_input", 2.0),
     lambda at: _budget_done(at)),
    ("pages/budget.py", {"bds": "asia"}, "bn", ["1", "1000"], ("number_input", 5000), lambda at: _budget_done(at)),
    # CURATE's margins: β = 1 leaves no lower band (α(1 − β) = 0) and crashed the run
    ("pages/budget.py", {"bds": "asia", "bn": "5000"}, "bbeta", ["1", "1.5"], ("number_input", 0.3),
     lambda at: _budget_done(at)),
    # Score: ε, δ, n
    ("pages/score.py", {"salgo": "noleaks", "sn": "500"}, "seps", EPS_BAD, ("number_input", 2.0),
     lambda at: _score_done(at)),
    ("pages/score.py", {"salgo": "noleaks", "sn": "500"}, "sdelta", DELTA_BAD, ("select_slider", 1e-6),
     lambda at: _score_done(at)),
    ("pages/score.py", {"salgo": "notears"}, "sn", ["1"], ("number_input", 500), lambda at: _score_done(at)),
    # Trade-off: n (its ε grid is a text box, tested below)
    ("pages/tradeoff.py", {"tods": "asia", "toalg": "priv-pc", "toeps": "1", "toreps": "1"}, "ton", ["1"],
     ("number_input", 5000), lambda at: _tradeoff_done(at)),
    ("pages/tradeoff.py", {"tods": "asia", "toalg": "priv-pc", "toeps": "1", "toreps": "1"}, "tojobs", ["9"],
     ("radio", 1), lambda at: _tradeoff_done(at)),
]


def _local_done(at):
    at.session_state["local_tab"] = "Discovery"  # PC's runs are drawn in their tab, when it is open
    at.run()
    no_exception(at)
    table = at.dataframe[-1].value
    assert set(table["pipeline"]) >= {"naive (fisherz)", "de-biased (g2)"}


def _encrypted_done(at, dp=False):
    assert any(m.label == "CI decisions = plaintext" for m in at.metric)
    if dp:  # said in the Privacy tab, drawn when open
        at.session_state["encrypted_tab"] = "Privacy"
        at.run()
        no_exception(at)
        assert any("(ε = 2)-differentially private" in s.value for s in at.success)  # one pure-ε release


def _budget_done(at):
    assert {"Total budget", "ε used"} <= {m.label for m in at.metric}


def _score_done(at):
    assert at.session_state["score_result"].metrics is not None
    assert any(m.label == "SHD" for m in at.metric)


def _tradeoff_done(at):
    assert {m.label: m.value for m in at.metric}["Runs in this sweep"] == "1"


def _case_id(case):
    return f"{case[0].split('/')[1][:-3]}-{case[2]}"


def _url_params():
    """One case per setting: its first bad value goes through the whole flow (refused, then the good value runs);
    the others only have to be refused (the good value's run would be the same run again)."""
    for case in URL_CASES:
        for i, value in enumerate(case[3]):
            yield pytest.param(case, value, i == 0, id=f"{_case_id(case)}={value}")


def _input_errors(at):
    """Error boxes other than a run's own "No privacy guarantee" statement (a result, not an input error)."""
    return [e for e in at.error if "No privacy guarantee" not in e.value]


def _stop_before_the_data(*args, **kwargs):
    import streamlit as st

    st.stop()


@pytest.mark.parametrize("case,value,whole_flow", list(_url_params()))
def test_app_bad_value_in_the_link_is_refused_and_said(case, value, whole_flow, monkeypatch):
    import ui.common

    page, base, key, _, (kind, good), done = case
    at = app()
    at.switch_page(page)
    # the link is checked around the page's controls, before any data are loaded: the run with the refused value
    # stops where the page would load the data (the setting's first bad value then runs the whole flow with the good
    # value; the others only have to be refused)
    load = ui.common.load_dataset
    monkeypatch.setattr(ui.common, "load_dataset", _stop_before_the_data)
    at.query_params.update({**base, key: value})
    at.run()
    no_exception(at)
    _refused(at, key, value)
    widget = getattr(at.sidebar, kind)(key=key)
    if kind == "number_input":  # the widget's own bounds keep typed values in range
        assert widget.min is not None and widget.max is not None and np.isfinite(widget.max)
        assert widget.min <= widget.value <= widget.max
        if key in ("eps", "reps", "eps_cap", "leps", "feps", "beps", "breps", "seps"):
            assert widget.min > 0 and widget.max <= 1e6
        elif key in ("n", "ln", "fn", "bn", "sn", "ton"):
            assert widget.min >= 5
    else:  # α, δ and the maximum order are chosen from fixed options, all valid
        assert str(widget.value) != value
    if not whole_flow:
        return
    monkeypatch.setattr(ui.common, "load_dataset", load)
    widget.set_value(good).run()
    no_exception(at)
    assert not _input_errors(at), [e.value for e in at.error]
    if kind == "number_input" or kind == "select_slider":
        assert getattr(at.sidebar, kind)(key=key).value == good
    done(at)


@pytest.mark.parametrize("page,params", [
    ("pages/discover.py", {"n": "2000", "ds": "x`[click here to fix](https://evil.example/login)`"}),
    ("pages/budget.py", {"bn": "5000", "bsens": "x` **Session expired** [sign in](https://evil.example) `"}),
    ("pages/demo.py", {"scenario": "x` **Your session expired** [log in again](https://evil.example) `"}),
    ("pages/discover.py", {"n": "2000", "ranges": "[click](https://evil.example/x)=1:2"}),
    ("pages/tradeoff.py", {"tods": "asia", "toalg": "gauss-pc", "ton": "2000",
                           "toeps": "**Fix:** [see guide](https://evil.example) $x$"}),
], ids=["discover-refused", "budget-refused", "demo-scenario", "discover-ranges", "tradeoff-grid"])
def test_app_messages_quote_a_link_as_text(page, params):
    """A message that quotes what a link (or a file, or a typed field) said shows it as text: no link, emphasis or
    formula of the user's making inside the app's own warning or error (CommonMark's reading, by markdown-it)."""
    from markdown_it import MarkdownIt

    at = app()
    at.switch_page(page)
    at.query_params.update(params)
    at.run()
    no_exception(at)
    messages = [m.value for m in [*at.warning, *at.error] if "evil.example" in shown(m.value)]
    assert messages, [m.value for m in [*at.warning, *at.error]]
    md = MarkdownIt("commonmark")
    for m in messages:
        rendered = md.renderInline(m)
        assert "href" not in rendered and "<strong>" not in rendered and "<em>" not in rendered, rendered
        # LaTeX ($…$, read by Streamlit's Markdown, not by CommonMark): every dollar escaped or inside code
        assert not re.search(r"(?<!\\)\$", re.sub(r"(`+).*?\1", "", m)), m


def test_app_a_setting_given_twice_in_a_link_is_said(monkeypatch):
    """?n=2000&n=3000: the page runs with one of them; it says so, where it kept both in the link silently."""
    import ui.common

    monkeypatch.setattr(ui.common, "load_dataset", _stop_before_the_data)
    at = app()
    at.query_params["n"] = ["2000", "3000"]
    at.run()
    no_exception(at)
    used = at.sidebar.number_input(key="n").value
    assert any(f"`n=2000,3000` (using {used})" in w.value for w in at.warning), [w.value for w in at.warning]


def test_app_a_refused_setting_is_said_once_though_the_tabs_check_the_link_again():
    """Discover checks the link around its sidebar and again around its tabs (ui.widgets.lazy_tabs): a setting
    given twice was named in two identical warnings."""
    at = app()
    at.query_params.update({"ds": "asia", "n": ["2000", "3000"], "discover_tab": ["Data", "CI-test log"]})
    at.run()
    no_exception(at)
    said = [w.value for w in at.warning if "ignored" in w.value]
    assert len(said) == 2 and sum("`n=2000,3000`" in w for w in said) == 1, said  # the sidebar's and the tabs'
    assert sum("`discover_tab=Data,CI-test log`" in w for w in said) == 1, said


@pytest.mark.parametrize("page,params,unused", [
    ("pages/discover.py", {"n": "2000", "eps": "0.5", "epsilon": "1"}, ["`eps=0.5`", "`epsilon=1`"]),  # PC: no ε
    ("pages/discover.py", {"n": "2000", "algo": "laplace-pc", "eps": "0.5"}, []),
    ("pages/learn.py", {"lX": "bogus"}, ["`lX=bogus`"]),
    ("pages/demo.py", {"scenario": "epsilon-cost"}, []),
], ids=["discover-pc", "discover-private", "learn", "demo"])
def test_app_link_settings_no_control_took_are_named(page, params, unused):
    """A misspelt setting, or one for a control the other settings hide, was kept in the link and ignored without
    a word; the page names it once it has run (and nothing else: a setting a control took is not named), and takes
    it out of the address."""
    at = app(timeout=120)
    at.switch_page(page)
    at.query_params.update(params)
    at.run()
    no_exception(at)
    said = [w.value for w in at.warning if "does not use" in w.value]
    if unused:
        assert len(said) == 1 and all(u in said[0] for u in unused), said
        assert not any(f"`{k}=" in said[0] for k in params if f"`{k}={params[k]}`" not in unused), said
    else:
        assert not said, said
    # the address keeps what the page took and drops what it ignored: a link copied from it says nothing again
    named = {u.strip("`").split("=")[0] for u in unused}
    assert named.isdisjoint(at.query_params), dict(at.query_params)
    assert {k for k in params if k not in named} <= set(at.query_params), dict(at.query_params)


def test_the_unused_settings_message_stays_until_the_user_goes_to_another_page():
    """Said once and gone on the page's next run (a tab opened), the message moved everything below it, the tab bar
    just clicked included, up by its height. (A script of its own: after ``switch_page`` AppTest reruns the page file
    alone, without app.py, which calls this.)"""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from ui.common import say_unused_link_settings

        st.text_input("a control", key="k")
        page = st.session_state.get("page", "a")  # the link page "a" opened with; page "b" has none
        say_unused_link_settings({"k": ["1"], "epsilon": ["1"]} if page == "a" else {}, st.empty(), page)

    at = AppTest.from_function(script, default_timeout=30)

    def said():
        return [w.value for w in at.warning if "does not use" in w.value]

    at.run()
    assert len(said()) == 1 and "`epsilon=1`" in said()[0] and "`k=" not in said()[0]
    at.run()  # the same page again: the message stays where it was
    assert len(said()) == 1
    at.session_state["page"] = "b"  # another page: gone, and not said again on the way back
    at.run()
    assert not said()
    at.session_state["page"] = "a"
    at.run()
    assert not said()


def test_app_refused_choice_is_named_as_its_control_shows_it(monkeypatch):
    """A refused option of a control that shows its options under labels: the message names the option used by
    its label, as the control shows it (Trade-off's chart controls: tests/app/test_app.py)."""
    import ui.common

    monkeypatch.setattr(ui.common, "load_dataset", _stop_before_the_data)
    at = app()
    at.switch_page("pages/discover.py")
    at.query_params.update({"algo": "gauss-pc", "private_test": "bogus"})
    at.run()
    no_exception(at)
    _refused(at, "private_test", "bogus")
    assert any("`private_test=bogus` (using Kendall τ (small sensitivity))" in shown(w.value) for w in at.warning), [
        w.value for w in at.warning]


@pytest.mark.parametrize("page,key,params", [
    ("pages/discover.py", "eps", {"algo": "curate", "n": "5000"}),
    ("pages/score.py", "seps", {"salgo": "noleaks", "sn": "500"}),
    ("pages/budget.py", "beps", {"bds": "asia", "bn": "5000"}),
], ids=["discover", "score", "budget"])
@pytest.mark.parametrize("value", [0.0, -1.0, float("nan"), float("inf"), 1e300])
def test_app_typed_epsilon_out_of_range_is_not_taken(page, key, params, value, monkeypatch):
    """Typing: the browser keeps a number input within its bounds; a value sent anyway is not taken either (the
    controls come before the data: the runs stop where the page would load them)."""
    import ui.common

    monkeypatch.setattr(ui.common, "load_dataset", _stop_before_the_data)
    at = app()
    at.switch_page(page)
    at.query_params.update(params)
    at.run()
    no_exception(at)
    before = at.sidebar.number_input(key=key).value
    at.sidebar.number_input(key=key).set_value(value).run()
    no_exception(at)
    now = at.sidebar.number_input(key=key).value
    assert now == before and 0 < now <= 1e6


def test_app_max_order_larger_than_d_is_said_on_discover_local_and_encrypted():
    """By design not an error (see test_cli_max_order_larger_than_d_is_capped_and_said): the page says what ran."""
    at = app()
    at.query_params.update({"maxord": "10", "n": "5000"})  # asia: 8 variables, so at most 6
    at.run()
    no_exception(at)
    assert any("maximum order 10 is more than 8 variables allow" in c.value for c in at.caption)
    assert at.session_state["discovery"].params["max_order"] == 6
    at = app()
    at.switch_page("pages/local.py")
    at.query_params.update({"lscen": "Asia network (8 binary variables)", "ln": "2000", "lcal": "neff",
                            "lmaxo": "9"})
    at.session_state["local_tab"] = "Discovery"
    at.run()
    no_exception(at)
    assert any("maximum order 9 is more than 8 variables allow" in c.value for c in at.caption)
    at = app()
    at.switch_page("pages/encrypted.py")
    at.query_params.update({"fmode": "aggregate", "fn": "2000", "fnet": "cancer", "fmaxo": "5"})  # cancer: 5
    at.run()
    no_exception(at)
    assert any("maximum order 5 is more than 5 variables allow" in c.value for c in at.caption)


TRADEOFF = {"tods": "asia", "ton": "2000", "toalg": "priv-pc", "toreps": "1", "tojobs": "1"}


@pytest.mark.parametrize("value", EPS_BAD + ["", "1,abc", "logspace:0:1"])
def test_app_tradeoff_bad_epsilon_grid_is_explained_then_runs(value):
    at = app()
    at.switch_page("pages/tradeoff.py")
    at.query_params.update({**TRADEOFF, "toeps": value})
    at.run()
    no_exception(at)
    errors = [shown(e.value) for e in at.error]
    pattern = {"": r"need an ε grid", "1,abc": r"numbers separated by commas", "logspace:0:1": r"logspace:START",
               "nan": r"(?i)nan", "inf": r"inf", "1e300": r"≤ 1e6"}.get(value, r"positive")
    assert any(re.search(pattern, e) and "ε" in e for e in errors), errors
    at.text_input(key="toeps").set_value("1").run()
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert {m.label: m.value for m in at.metric}["Runs in this sweep"] == "1"
    if not at.button(key="togo").disabled:  # disabled: another test already ran this sweep (cached across sessions)
        at.button(key="togo").click().run()
    no_exception(at)
    assert "Utility vs ε" in [t.label for t in at.tabs]
    assert not [w.value for w in at.warning if "rejected" in w.value]


def test_app_says_how_a_discrete_test_bins_numeric_columns_of_an_upload():
    """A 0/1 column read as numeric is not cut into 3 quantile bins, as the note said: a column with at most that
    many values keeps one bin per value."""
    at = app()
    at.query_params.update({"src": "Upload a CSV", "algo": "pc", "test": "g2"})
    at.run()
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 400)
    rows = ["x,y"] + [f"{a},{a + rng.normal():.4f}" for a in x]
    _upload(at, "numeric.csv", ("\n".join(rows) + "\n").encode())
    no_exception(at)
    said = [i.value for i in at.info if "needs discrete data" in i.value]
    assert said and "3 quantile bins (a column with at most 3 values keeps one bin per value)" in said[0], said
    assert at.session_state["discovery"].dataset.arities == (2, 3)
