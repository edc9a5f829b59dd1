"""Shared fixtures: the repository root and a real Streamlit server for browser tests."""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from headless import CHROMIUM_ARGS, LEAN_ARGS, STILL

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"


#: test kinds, one folder each; every test is marked with its folder's kind (``pytest -m unit``)
KINDS = ("unit", "statistical", "cli", "app", "browser")


def pytest_collection_modifyitems(config, items):
    for item in items:
        kind = Path(str(item.fspath)).parent.name
        if kind in KINDS:
            item.add_marker(getattr(pytest.mark, kind))
    # The browser tests form two chains, each marked in its files (xdist_group: "browser-pages" for test_browser.py,
    # "browser-leaving" for the leaving, hostile-name and isolation tests): a chain runs on one worker, one test after
    # another, against that worker's server and chromium (pytest.ini: -n 4 --dist loadgroup). They wait on pages and
    # runs more than they compute, so the other workers' tests fill the cores meanwhile; handed out first, the chains
    # start at once. The suite is bound by the two cores' CPU, not by the chains' length: the every-page check had a
    # chain, a server and a chromium of its own, whose start-up and first drawing of each page cost the machine
    # ~10 CPU-s (busy CPU over whole runs: 285 and 287 CPU-s with three chains, 272–281 with two), while the pages'
    # chain grew from ~82 s to ~100–111 s of a ~140 s suite.
    items.sort(key=lambda item: Path(str(item.fspath)).parent.name != "browser")


def pytest_collection_finish(session):
    """Python's cycle collector, tuned for a test process: the modules and objects of collection are frozen out of
    every later collection, and a young-generation collection waits for 50,000 new container objects rather than
    700. The default settings spent ~12 % of the workers' CPU in 15,000–20,000 collections over the suite (measured
    with gc.callbacks); these spend about half of that. Garbage is still collected, later and in bigger batches."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


class Lazy:
    """``import MODULE`` (or ``from MODULE import ATTR``) on first use. Collection imports every test module in each
    of the four workers before any test runs; the libraries only some tests need (scipy.stats, pandas, networkx,
    Streamlit's AppTest) took ~1.7 s of CPU per worker to import there. ``stats = Lazy("scipy.stats")`` reads like
    the import it stands for."""

    def __init__(self, module: str, attr: str | None = None):
        self._module, self._attr = module, attr

    def __getattr__(self, name):
        import importlib

        if name.startswith("_"):  # what collection asks of every module-level object (__test__, pytest's marks)
            raise AttributeError(name)
        target = importlib.import_module(self._module)
        if self._attr is not None:
            target = getattr(target, self._attr)
        return getattr(target, name)


#: this test process's own ``__main__``, recorded before any test runs (see local_cluster)
_PROCESS_MAIN = sys.modules["__main__"]


@contextmanager
def local_cluster():
    """A Dask LocalCluster of two single-threaded worker processes on 127.0.0.1, for the sweep's dask backend.

    Dask's nannies start (and restart) their workers with multiprocessing's "spawn", which re-runs the parent's
    ``__main__`` file in the child. Streamlit's AppTest leaves ``sys.modules["__main__"]`` pointing at the last script
    it ran, for ``AppTest.from_function`` a temporary file deleted since: after an app test in the same test worker,
    both worker processes exited with status 1 (FileNotFoundError in spawn's _fixup_main_from_path) and the cluster
    failed to start ("Nanny failed to start"). The process's own ``__main__`` is put back while the cluster lives."""
    distributed = pytest.importorskip("distributed")
    left_by_tests = sys.modules["__main__"]
    sys.modules["__main__"] = _PROCESS_MAIN
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True,
                                      dashboard_address="127.0.0.1:0") as cluster:
            yield cluster
    finally:
        sys.modules["__main__"] = left_by_tests


def shown(markdown: str) -> str:
    """The text a Markdown message shows, for comparing with what a user reads: CommonMark's backslash escapes of
    ASCII punctuation (how the app writes user-supplied and program text literally) removed."""
    import re

    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def reopened_link(at) -> dict | None:
    """The query an AppTest page has the browser open instead of its link (ui.links.canonical_link), or None."""
    import re
    from urllib.parse import parse_qs

    for h in at.get("html"):
        m = re.search(r'location\.replace\("\?([^"]*)"', h.proto.body)
        if m:
            return parse_qs(m.group(1))
    return None


def following_reopened_links(at):
    """An AppTest whose ``run()`` does what the browser does where a page opens its link again under other names
    (ui.links.canonical_link; AppTest runs no page script): it runs the reopened link."""
    run = at.run

    def run_following(*args, **kwargs):
        out = run(*args, **kwargs)
        query = reopened_link(at)
        if query is not None:
            at.query_params.clear()
            at.query_params.update({k: v[0] if len(v) == 1 else v for k, v in query.items()})
            out = run(*args, **kwargs)
        return out

    at.run = run_following
    return at


def private_kendall_pc(ds, alpha: float, max_order=None):
    """Non-private PC with the statistic the private algorithms use (Kendall z̃ with the public normaliser,
    one-sided p): what they converge to as ε grows. Returns the engine's Result and the metrics."""
    from cgdcore.citests import make_ci_test, suffstats_for
    from cgdcore.metrics import evaluate
    from cgdcore.pc import PValuePolicy, pc

    test = make_ci_test("kendall", suffstats_for(ds.data, ds.arities), sided="one", normaliser="public")
    res = pc(PValuePolicy(test, alpha), ds.variables, max_order=max_order)
    return res, evaluate(res.cpdag, ds.truth)


def cli(*args, input: str | None = None, timeout=None):
    """``python -m cgdcore ARGS`` in this process, through the CLI's own ``main(argv)``: exit code, stdout and stderr
    as a CompletedProcess (the process-level cases — exit status of the interpreter, no traceback, light import —
    use :func:`cli_process`)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from cgdcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    if input is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(input.encode()), encoding="utf-8")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as e:  # never expected: main() turns every exit into a return code
                code = e.code if isinstance(e.code, int) else 2
    finally:
        sys.stdin = stdin
    return subprocess.CompletedProcess(["cgdcore", *args], code, out.getvalue(), err.getvalue())


def cli_process(*args, input: str | None = None, timeout=180):
    """``python -m cgdcore ARGS`` as a separate process."""
    return subprocess.run([sys.executable, "-m", "cgdcore", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, input=input)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def apptest_start_up_once():
    """What a real server does once, at start-up, AppTest does on every run: scan every installed distribution's
    metadata for Streamlit components (~0.06 s), and parse and compile app.py and the page afresh (a new script
    cache per run; the pages' magic-command rewrite parses them in Python). Nothing is installed and no script
    changes during a test session, so the scan's answer and one script cache are kept. And AppTest waits for a run
    to end by waking every millisecond to scan all the run's events so far for the last one; here it waits on the
    run's thread, which ends right after that event (LocalScriptRunner.run joins it next anyway): test_app.py took
    26.4–27.9 CPU-s with the polling, 25.4 without. Used by the modules that drive AppTest (``pytestmark``), so a
    worker that runs none of them does not import Streamlit."""
    from streamlit.components.v2 import manifest_scanner
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    def wait_for_the_run(runner, timeout: float = 3) -> None:
        thread = runner._script_thread
        if thread is not None:
            thread.join(timeout)
        if not runner.script_stopped():  # as AppTest ends a run that outlasts its timeout
            runner.request_stop()
            runner.join()
            raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")

    found = manifest_scanner.scan_component_manifests()
    scripts = ScriptCache()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(manifest_scanner, "scan_component_manifests", lambda: list(found))
        mp.setattr(app_test, "ScriptCache", lambda: scripts)
        mp.setattr(local_script_runner, "ScriptCache", lambda: scripts)
        mp.setattr(local_script_runner, "require_widgets_deltas", wait_for_the_run)
        yield


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's headless build of chromium when installed (the same Blink and V8 without the desktop browser around
    them: a fifth less CPU over the page tests, measured), else Debian's chromium."""
    path = shutil.which("chromium-headless-shell") or shutil.which("chromium")
    if path is None:
        pytest.fail("Debian's chromium is not installed: run `make test`, which installs it (apt-get install chromium).")
    return path


@contextmanager
def running_streamlit(log_path, **env):
    """`streamlit run serve.py` (the app as `make app` serves it) on a free loopback port with extra environment
    ``env``; yields (base URL, process, log file) once healthy; stopped on exit."""
    port = free_port()
    log = open(log_path, "w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "serve.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.runOnSave", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1", **env})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"streamlit exited early:\n{log.read()}")
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.read().decode().strip() == "ok":
                        break
            except OSError:
                time.sleep(0.3)
        else:
            pytest.fail("streamlit did not become healthy within 60 s")
        yield url, proc, log
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def streamlit_server(tmp_path_factory):
    """`streamlit run serve.py` on a free loopback port; yields the base URL; stopped at teardown."""
    with running_streamlit(tmp_path_factory.mktemp("server") / "streamlit.log") as (url, _, _):
        yield url


@pytest.fixture(scope="session")
def unbounded_server(tmp_path_factory):
    """`streamlit run serve.py` without the work ceiling (CGD_MAX_WORK=0) and with heavy runs at the default priority
    (CGD_HEAVY_NICE=0); yields (base URL, psutil.Process, log file). The "browser-leaving" chain's one server: its
    leaving tests start runs meant to be long and time their end by the server's CPU, and its other tests (hostile
    names, isolation) need no ceiling either, so the chain starts one server, not two (~4 s of CPU: start-up and
    the first drawing of each page).

    Why the default priority: the rest of the suite keeps both cores busy with processes at niceness 0, beside which
    a run at niceness 10 gets a few percent of a core: after its user left it took over 5 s (once in six full runs)
    to reach its next checkpoint (one decision over 10^6 rows is ~0.5 s of CPU), and under four busy loops it never
    even showed as busy. The leaving tests time the cancelling, not the kernel's sharing of a saturated machine."""
    import psutil

    with running_streamlit(tmp_path_factory.mktemp("unbounded") / "streamlit.log", CGD_MAX_WORK="0",
                           CGD_HEAVY_NICE="0") as (url, proc, log):
        yield url, psutil.Process(proc.pid), log


class TestBrowser:
    """The launched browser as the tests use it. ``new_context()`` hands out this worker's one reused tab (see
    :class:`ReusedTab`): a page loaded again in the same tab keeps its compiled scripts, where a new context compiles
    Streamlit's and plotly's ~7 MB of JavaScript again (about 2 s of CPU per page load, measured). Tests that model
    two users, or close a tab, ask for ``new_context(fresh=True)``: a context of its own, as a new user's browser.
    Every page runs :data:`headless.STILL`."""

    def __init__(self, browser):
        self._browser = browser
        self._tab = None

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_context(self, fresh: bool = False, **kwargs):
        if fresh:
            ctx = self._browser.new_context(**kwargs)
            ctx.add_init_script(STILL)
            return ctx
        if self._tab is None or self._tab.is_closed():
            ctx = self._browser.new_context(accept_downloads=True)
            ctx.add_init_script(STILL)
            self._tab = ctx.new_page()
        return ReusedTab(self._tab, kwargs.get("viewport"))


class ReusedTab:
    """A context-like handle on the reused tab: ``new_page()`` is the tab itself, at the viewport asked; ``close()``
    ends the app session by loading a blank page in it."""

    def __init__(self, tab, viewport):
        self._tab, self._viewport = tab, viewport

    def new_page(self):
        if self._viewport:
            self._tab.set_viewport_size(self._viewport)
        return self._tab

    def close(self):
        self._tab.goto("about:blank")


#: how long an expect() without its own timeout waits for what it expects (Playwright's default is 5 s): a
#: browser and a server sharing two loaded cores took longer than 5 s to show a metric once
EXPECT_TIMEOUT_MS = 20_000


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)  # an expectation met sooner returns sooner
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS + LEAN_ARGS)
        yield TestBrowser(b)
        b.close()
