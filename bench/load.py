"""The app under load: concurrent browser sessions running private discovery against one `streamlit run`.

Ninth session (default): python bench/load.py [--sessions 8] [--probes 10] [--new-browsers 1] [--n 2000000]
[--dataset alarm] [--algo priv-pc] [--reps 1] [--own-data 1]. Eight browser sessions open at once and start heavy
runs (each deep-links the Discover page with its own noise seed and, by default, its own data seed, so each run samples its data and counts
its own tables and none is served from a cache); once the server computes, a ninth user opens the Datasets page in a
new browser session, then reloads it, ``--probes`` times in all, and each render is timed (target: under a second)
with the server's cores over the second before it and the moments each part entered the page (noted by the page
itself, in its own clock): the HTML page, the heading (the app connected and the script started), the table, the
graph, the finished run. A first render
right after the server started (the page's imports) is timed apart, then a new browser and reloads on the idle
server. The eight heavy sessions' pages live in a browser of their own at niceness 19 (``--heavy-browser-nice``):
their users' browsers would run on their own machines, not on the server's cores, and at the same priority their
page updates took more CPU than the server. Then the eight sessions are closed, which ends their runs
(leaving a page cancels its run), and the time until the server's CPU is idle again is printed. Progress is printed
as it happens; the whole bench takes a few minutes.

Complete runs: python bench/load.py --complete [--sessions 8] [--n 100000] [--dataset sachs] ... waits instead for
every run to finish.
Starts a real Streamlit server for app.py and drives Debian's chromium through Playwright (one browser,
a separate context per user). Every load session deep-links the Discover page with its own noise seed
(private results are cached by their full parameters, seed included, so no two sessions share a cache
entry; the sampled data are shared, as for real users of the same dataset) and waits for the finished
result: the "Discovery complete" status, the ε-spent metric and the drawn graph, with no exception or
error element. Meanwhile a probe session reloads the Datasets page again and again and times each
render: the server must stay responsive. The server's RSS (its process and children) is sampled every
0.2 s. Baselines: a first session on the fresh server (imports, data sampling), one session alone on
warm data with an unused noise seed, and the probe's render time on an idle server.
Requires the dev requirements (Playwright) and Debian's chromium (`make chromium`); no browser is
downloaded. Exits non-zero if any session failed.

Soak mode: python bench/load.py --runs 200 [--cache-mb 256] [--core-cache-mb 128] performs that many varied runs
one after another, each in a new browser session (Discover with six algorithms on seven networks, Score, Local
privacy, Budget, Demo scenarios, Trade-off sweeps and the Datasets page; datasets, n, ε and seeds vary, so nearly
every run misses the caches), prints the server's RSS every 10 runs and checks the end against the bound the README
states: the RSS after the first 20 runs (every page imported, caches warming) plus the app's cache budget
CGD_CACHE_MB plus the core's cache budget CGD_CORE_CACHE_MB (both given to the server) plus 150 MB.
Exits non-zero if a run failed or the bound is broken.
"""
import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil
from process_cpu import live_cpu_seconds

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from headless import CHROMIUM_ARGS, STILL  # noqa: E402  (the browser tests' chromium)

IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
ERRORS = "[data-testid='stException'], [data-testid='stAlertContentError']"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, log, script: str = "serve.py"):
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port), "--server.headless", "true",
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
         "--server.runOnSave", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"streamlit exited early (exit code {proc.returncode}); see {log.name}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read().decode().strip() == "ok":
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit("streamlit did not become healthy within 60 s")


class RssSampler(threading.Thread):
    """Peak resident memory of a process plus all its children, sampled every ``period`` seconds; also the
    CPU seconds of that tree and of the rest of this script's children (the browser) since the last mark."""

    def __init__(self, pid: int, period: float = 0.2):
        super().__init__(daemon=True)
        self.proc, self.period, self.stop = psutil.Process(pid), period, threading.Event()
        self.cpu = {"server": {}, "browser": {}}
        self.base = {"server": {}, "browser": {}}
        self.peak = self.now = 0
        self.mark()

    def mark(self):
        """Start a new window: ``peak`` and ``cpu_seconds`` cover the samples since the last mark."""
        self.peak = self.now = self.sample()
        self.base = {k: dict(v) for k, v in self.cpu.items()}

    def cpu_seconds(self, group: str) -> float:
        base = self.base[group]
        return sum(c - base.get(pid, 0.0) for pid, c in self.cpu[group].items())

    @staticmethod
    def _tree(proc):
        try:
            return [proc] + proc.children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def sample(self) -> int:
        server = self._tree(self.proc)
        ids = {p.pid for p in server}
        browser = [p for p in self._tree(psutil.Process()) if p.pid not in ids and p.pid != os.getpid()]
        total = 0
        for group, procs in (("server", server), ("browser", browser)):
            for p in procs:
                try:
                    with p.oneshot():
                        if group == "server":
                            total += p.memory_info().rss
                        t = p.cpu_times()
                        self.cpu[group][(p.pid, p.create_time())] = t.user + t.system
                except psutil.NoSuchProcess:
                    pass
        return total

    def run(self):
        while not self.stop.wait(self.period):
            self.now = self.sample()
            self.peak = max(self.peak, self.now)


class HealthProbe(threading.Thread):
    """Latency of the server's own health endpoint every ``period`` seconds: its event loop, without a browser."""

    def __init__(self, url: str, period: float = 0.2):
        super().__init__(daemon=True)
        self.url, self.period, self.stop = url + "/_stcore/health", period, threading.Event()
        self.times, self.failures = [], 0

    def run(self):
        while not self.stop.wait(self.period):
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=30) as r:
                    r.read()
                self.times.append(time.perf_counter() - t)
            except OSError:
                self.failures += 1


async def discovery_session(browser, url: str, noise_seed: int, args, shot: Path | None = None) -> dict:
    """One user: deep-link the Discover page, wait for the finished result; latency from navigation start."""
    from playwright.async_api import expect

    ctx = await browser.new_context(viewport={"width": 1500, "height": 2200})
    page = await ctx.new_page()
    link = (f"{url}/?ds={args.dataset}&n={args.n}&algo={args.algo}&reps={args.reps:g}&nseed={noise_seed}")
    out = {"seed": noise_seed, "ok": False, "error": "", "seconds": float("nan"), "eps": "", "tests": ""}
    t0 = time.perf_counter()
    try:
        await page.goto(link, wait_until="domcontentloaded", timeout=args.timeout * 1000)
        metrics = page.locator("[data-testid='stMetric']")
        await expect(page.get_by_text("Discovery complete")).to_be_visible(timeout=args.timeout * 1000)
        await expect(metrics.filter(has_text="ε spent").first).to_be_visible(timeout=args.timeout * 1000)
        await expect(page.locator("[data-testid='stPlotlyChart'] .main-svg").first).to_be_attached(
            timeout=args.timeout * 1000)
        await page.locator(IDLE).wait_for(state="attached", timeout=args.timeout * 1000)
        out["seconds"] = time.perf_counter() - t0
        out["eps"] = await metrics.filter(has_text="ε spent").first.locator(
            "[data-testid='stMetricValue']").inner_text()
        out["tests"] = await metrics.filter(has_text="CI tests").first.locator(
            "[data-testid='stMetricValue']").inner_text()
        errors = page.locator(ERRORS)
        if await errors.count():
            out["error"] = "error element: " + (await errors.first.inner_text())[:120].replace("\n", " ")
        elif str(args.n) not in (await metrics.filter(has_text="Rows").first.inner_text()).replace(",", ""):
            out["error"] = "the Rows metric does not show n"
        else:
            out["ok"] = True
        if shot is not None:
            shot.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(shot), full_page=True)
    except Exception as e:  # noqa: BLE001 (a timeout or a crash is a failed session, reported below)
        out["seconds"] = time.perf_counter() - t0
        out["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    finally:
        await ctx.close()
    return out


#: a page script that notes, in the page's own clock (ms since the navigation started), when each part of the
#: Datasets page enters the document and when the script run ends: Playwright's waits poll with growing intervals
#: (up to a second), so they would time the poll, not the page
SEEN = """(() => { const t = {}; window.__cgdSeen = t;
const note = () => { const now = performance.now();
  if (!t.heading) for (const h of document.querySelectorAll('h1, h2, h3'))
    if (h.textContent.trim().startsWith('Datasets')) { t.heading = now; break; }
  if (!t.table && document.querySelector("[data-testid='stMarkdownContainer'] table")) t.table = now;
  if (!t.graph && document.querySelector("svg[role='img'] text")) t.graph = now;
  const app = document.querySelector("[data-testid='stApp']");
  if (app) { const st = app.getAttribute('data-test-script-state');
    if (st === 'running') t.ran = now; else if (st === 'notRunning' && t.ran !== undefined && !t.done) t.done = now; } };
new MutationObserver(note).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
})();"""
STAGES = ("html", "heading", "table", "graph", "done")


async def render_datasets(page, url: str, timeout_s: float, stages: dict | None = None) -> float:
    """Load the Datasets page in a fresh script run; seconds from the navigation's start until the table and the true
    graph are in the page and the script has finished. ``stages`` receives the seconds at which each part appeared:
    the HTML page loaded (``html``: the app's scripts, from the browser's cache after the first visit), the heading
    (``heading``: the app connected and the page script started drawing), the table, the graph, and the finished run.
    The page's context must run :data:`SEEN` (``add_init_script``), which notes those moments in the page itself."""
    from playwright.async_api import expect

    ms = timeout_s * 1000
    await page.goto(url + "/datasets", wait_until="domcontentloaded", timeout=ms)
    await expect(page.get_by_role("heading", name="Datasets").first).to_be_visible(timeout=ms)
    await expect(page.locator("[data-testid='stMarkdownContainer'] table").first).to_be_visible(timeout=ms)
    await expect(page.locator("svg[role='img'] text").first).to_be_visible(timeout=ms)
    await page.locator(IDLE).wait_for(state="attached", timeout=ms)
    if await page.locator(ERRORS).count():
        raise RuntimeError("error element on the Datasets page")
    seen = await page.evaluate("""() => ({...window.__cgdSeen,
        html: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd})""")
    missing = [k for k in STAGES if seen.get(k) is None]
    if missing:
        raise RuntimeError(f"the page never noted {', '.join(missing)} (is SEEN installed?)")
    if stages is not None:
        stages.update((k, seen[k] / 1000) for k in STAGES)
    return max(seen[k] for k in STAGES) / 1000


async def probe(browser, url: str, done: asyncio.Event, args) -> dict:
    """The 9th user: reload the lightweight Datasets page until the load sessions have finished."""
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1400})
    await ctx.add_init_script(SEEN)
    page = await ctx.new_page()
    times, failures = [], []
    try:
        while not done.is_set():
            try:
                times.append(await render_datasets(page, url, args.probe_timeout))
            except Exception as e:  # noqa: BLE001
                failures.append(f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
            try:
                await asyncio.wait_for(done.wait(), timeout=0.5)
            except asyncio.TimeoutError:
                pass
    finally:
        await ctx.close()
    return {"times": times, "failures": failures}


NETWORKS = ("asia", "sachs", "child", "alarm", "insurance", "cancer", "survey")
#: EM-PC is left out: its page shows a deliberate error box (no privacy guarantee), which a run here counts as failed
DISCOVER_ALGOS = ("pc", "priv-pc", "svt-pc", "gauss-pc", "laplace-pc", "curate")
SOAK_PAGES = ("discover", "discover", "discover", "score", "local", "budget", "demo", "tradeoff", "datasets")


def soak_plan(k: int) -> tuple[str, str, str | None]:
    """Run ``k`` of the soak: (page, link, button to press or None); deterministic, varied across pages, datasets,
    algorithms, n, ε and seeds."""
    import random

    r = random.Random(k)
    page = SOAK_PAGES[k % len(SOAK_PAGES)]
    eps = r.choice((0.1, 0.5, 1.0, 2.0, 5.0, 10.0))
    if page == "discover":
        algo = r.choice(DISCOVER_ALGOS)
        ds = r.choice(NETWORKS)
        n = r.choice((2000, 5000, 10_000, 20_000))
        return page, f"/?ds={ds}&n={n}&seed={r.randrange(3)}&algo={algo}&eps={eps:g}&reps={eps:g}&nseed={k}", None
    if page == "score":
        algo = r.choice(("notears", "noleaks", "curate-score"))
        return page, f"/score?sds=synthetic&sn={r.choice((500, 1000, 2000))}&sseed={k}&salgo={algo}&seps={eps:g}", None
    if page == "local":
        return page, (f"/local?ln={r.choice((2000, 5000, 10_000))}&lmech={r.choice(('krr-cwise', 'geo-cwise'))}"
                      f"&lmode=%CE%B5&leps={eps:g}&lseed={k}"), None
    if page == "budget":
        return page, f"/budget?bds={r.choice(('asia', 'sachs', 'child'))}&bn={r.choice((2000, 5000, 10_000))}" \
                     f"&beps={eps:g}&breps={min(eps, 2.0):g}", None
    if page == "demo":
        return page, (f"/demo?scenario=epsilon-cost&cost_ds={r.choice(('asia', 'sachs', 'child'))}"
                      f"&cost_n={r.choice((10_000, 30_000))}&cost_eps={r.choice((0.5, 1.0, 2.0, 5.0))}&cost_seed={k}"), None
    if page == "tradeoff":
        return page, (f"/tradeoff?tods={r.choice(('asia', 'cancer', 'sachs'))}&ton={r.choice((2000, 5000))}"
                      f"&toalg={r.choice(('priv-pc', 'svt-pc', 'curate'))}&toeps=0.1,1,10&toreps=1&toseed={k}"
                      "&tojobs=1"), "Run sweep"
    return page, f"/datasets?dsview={r.choice(NETWORKS)}", None


async def soak_run(browser, url: str, k: int, timeout_s: float) -> dict:
    """One soak run in a new session: open its link, press its button if any, wait for a drawn figure (plotly's, or
    the Datasets page's SVG) and an idle script with no error or exception element."""
    from playwright.async_api import expect

    page_name, link, button = soak_plan(k)
    out = {"k": k, "page": page_name, "link": link, "ok": False, "error": "", "seconds": float("nan")}
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1600})
    page = await ctx.new_page()
    t0 = time.perf_counter()
    try:
        await page.goto(url + link, wait_until="domcontentloaded", timeout=timeout_s * 1000)
        if button is not None:
            await page.get_by_role("button", name=button).click(timeout=timeout_s * 1000)
            await expect(page.get_by_role("tab", name="Utility vs ε")).to_be_visible(timeout=timeout_s * 1000)
        figure = "svg[role='img'] text" if page_name == "datasets" else "[data-testid='stPlotlyChart'] .main-svg"
        await expect(page.locator(figure).first).to_be_attached(timeout=timeout_s * 1000)  # Datasets: a static SVG
        await page.locator(IDLE).wait_for(state="attached", timeout=timeout_s * 1000)
        out["seconds"] = time.perf_counter() - t0
        errors = page.locator(ERRORS)
        if await errors.count():
            out["error"] = "error element: " + (await errors.first.inner_text())[:160].replace("\n", " ")
        else:
            out["ok"] = True
    except Exception as e:  # noqa: BLE001 (a timeout or a crash is a failed run, reported below)
        out["seconds"] = time.perf_counter() - t0
        out["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
    finally:
        await ctx.close()
    return out


async def soak(url: str, rss: RssSampler, args) -> int:
    from playwright.async_api import async_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is not installed (`make chromium`)")
    mb = 1024 ** 2
    start = rss.sample()
    print(f"soak: {args.runs} varied runs, one new browser session each; server CGD_CACHE_MB = {args.cache_mb:g}, "
          f"CGD_CORE_CACHE_MB = {args.core_cache_mb:g}; RSS at start {start / mb:.0f} MB ({os.cpu_count()} cores)")
    print(f"{'runs':>5} {'wall s':>7} {'RSS MB':>7} {'peak MB':>8} {'server CPU s':>13}  pages in the last 10")
    results, series, warm = [], [], None
    t0 = time.perf_counter()
    rss.mark()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            for k in range(args.runs):
                results.append(await soak_run(browser, url, k, args.timeout))
                if not results[-1]["ok"]:
                    print(f"  run {k} FAILED ({results[-1]['page']} {results[-1]['link']}): {results[-1]['error']}")
                if (k + 1) % 10 == 0:
                    await asyncio.sleep(1.0)  # let the server release the closed sessions before sampling
                    now = rss.sample()
                    series.append((k + 1, now))
                    if k + 1 == 20:
                        warm = now
                    last = [r["page"] for r in results[-10:]]
                    print(f"{k + 1:>5} {time.perf_counter() - t0:7.0f} {now / mb:7.0f} {rss.peak / mb:8.0f} "
                          f"{rss.cpu_seconds('server'):13.1f}  " + ", ".join(
                              f"{pg} {last.count(pg)}" for pg in dict.fromkeys(last)))
        finally:
            await browser.close()
    end = rss.sample()
    warm = warm if warm is not None else start
    bound = warm + (args.cache_mb + args.core_cache_mb + 150) * mb
    ok = [r for r in results if r["ok"]]
    print(f"\nruns completed without error: {len(ok)} of {len(results)}")
    for page_name in dict.fromkeys(SOAK_PAGES):
        secs = [r["seconds"] for r in ok if r["page"] == page_name]
        if secs:
            print(f"  {page_name:<9} {len(secs):4d} runs, median {statistics.median(secs):5.1f} s, max {max(secs):5.1f} s")
    half = [v for k, v in series if k >= len(results) // 2]
    print(f"RSS: start {start / mb:.0f} MB, after 20 runs {warm / mb:.0f} MB, end {end / mb:.0f} MB, peak "
          f"{rss.peak / mb:.0f} MB; change over the second half {(half[-1] - half[0]) / mb if half else 0:+.0f} MB")
    print(f"bound: RSS after 20 runs + CGD_CACHE_MB + CGD_CORE_CACHE_MB + 150 MB = {bound / mb:.0f} MB -> "
          f"{'held' if end <= bound else 'BROKEN'} (end {end / mb:.0f} MB, margin {(bound - end) / mb:.0f} MB)")
    print(f"server CPU s over the soak: {rss.cpu_seconds('server'):.1f}; browser {rss.cpu_seconds('browser'):.1f}; "
          f"wall {time.perf_counter() - t0:.0f} s")
    return 0 if len(ok) == len(results) and end <= bound else 1


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


async def bench(url: str, rss: RssSampler, args) -> int:
    from playwright.async_api import async_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is not installed (`make chromium`)")
    shot = None if args.screenshot == "none" else Path(args.screenshot)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            rss.mark()
            cold = await discovery_session(browser, url, args.seed0 + 1000, args)
            alone = await discovery_session(browser, url, args.seed0 + 1001, args)
            rss_alone = rss.peak
            ctx = await browser.new_context()
            await ctx.add_init_script(SEEN)
            page = await ctx.new_page()
            idle_probe = [await render_datasets(page, url, args.probe_timeout) for _ in range(3)]
            await page.context.close()

            cpu_alone = rss.cpu_seconds("server"), rss.cpu_seconds("browser")
            rss.mark()
            done = asyncio.Event()
            probe_task = asyncio.create_task(probe(browser, url, done, args))
            health = HealthProbe(url)
            health.start()
            t0 = time.perf_counter()
            sessions = await asyncio.gather(*[
                discovery_session(browser, url, args.seed0 + i, args, shot if i == 1 else None)
                for i in range(1, args.sessions + 1)])
            wall = time.perf_counter() - t0
            done.set()
            pr = await probe_task
            health.stop.set()
            rss_load = rss.peak
            cpu_load = rss.cpu_seconds("server"), rss.cpu_seconds("browser")
        finally:
            await browser.close()

    mb = 1024 ** 2
    print(f"\n{args.dataset}, n = {args.n:,}, {args.algo}, per-round ε = {args.reps:g}; "
          f"{args.sessions} concurrent browser sessions + 1 Datasets-page probe ({os.cpu_count()} cores)")
    print(f"{'session':<14} {'noise seed':>10} {'seconds':>8} {'ε spent':>9} {'CI tests':>9}  status")
    for label, s in [("cold (alone)", cold), ("warm (alone)", alone)] + \
                    [(f"load #{i}", s) for i, s in enumerate(sessions, 1)]:
        print(f"{label:<14} {s['seed']:>10} {s['seconds']:8.2f} {s['eps']:>9} {s['tests']:>9}  "
              f"{'ok' if s['ok'] else 'FAILED: ' + s['error']}")
    lat = [s["seconds"] for s in sessions if s["ok"]]
    base = alone["seconds"]
    print(f"\n{'measure':<46} {'value':>10}")
    print(f"{'baseline, first session on a fresh server (s)':<46} {cold['seconds']:10.2f}")
    print(f"{'baseline, one session alone, warm data (s)':<46} {base:10.2f}")
    print(f"{'load: latency p50 (s)':<46} {pct(lat, 0.5):10.2f}   {pct(lat, 0.5) / base:5.1f}× alone")
    print(f"{'load: latency p95 (s)':<46} {pct(lat, 0.95):10.2f}   {pct(lat, 0.95) / base:5.1f}× alone")
    print(f"{'load: latency max (s)':<46} {max(lat, default=float('nan')):10.2f}")
    print(f"{'load: wall time for all sessions (s)':<46} {wall:10.2f}")
    print(f"{'Datasets page idle: median render (s)':<46} {statistics.median(idle_probe):10.2f}")
    pt = pr["times"]
    med = statistics.median(pt) if pt else float("nan")
    print(f"{'Datasets page under load: renders':<46} {len(pt):10d}   ({len(pr['failures'])} failed)")
    print(f"{'Datasets page under load: median render (s)':<46} {med:10.2f}   "
          f"{med / statistics.median(idle_probe):5.1f}× idle")
    print(f"{'Datasets page under load: max render (s)':<46} {max(pt, default=float('nan')):10.2f}")
    ht = [t * 1000 for t in health.times]
    print(f"{'server /_stcore/health under load: p50 / max (ms)':<46} {pct(ht, 0.5):5.0f} / {max(ht, default=0):.0f}"
          f"   ({len(ht)} requests, {health.failures} failed)")
    print(f"{'server peak RSS, baselines (MB)':<46} {rss_alone / mb:10.0f}")
    print(f"{'server peak RSS, under load (MB)':<46} {rss_load / mb:10.0f}")
    print(f"{'CPU s in baselines + idle probe: server / browser':<46} {cpu_alone[0]:5.1f} / {cpu_alone[1]:.1f}")
    print(f"{'CPU s under load: server / browser':<46} {cpu_load[0]:5.1f} / {cpu_load[1]:.1f}   "
          f"(wall {wall:.1f} s × {os.cpu_count()} cores = {wall * (os.cpu_count() or 1):.0f} core-s)")
    seeds = {(s["eps"], s["tests"]) for s in sessions if s["ok"]}
    print(f"{'distinct results among load sessions':<46} {len(seeds):10d}")
    failed = [s for s in [cold, alone] + sessions if not s["ok"]] + pr["failures"] + [None] * health.failures
    print(f"\nall sessions completed without error: {'yes' if not failed else 'NO (' + str(len(failed)) + ')'}")
    if shot is not None and sessions[0]["ok"]:
        print(f"screenshot of load session #1: {shot}")
    return 0 if not failed else 1


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of a process and its live children so far."""
    return live_cpu_seconds(RssSampler._tree(psutil.Process(pid)))


async def until_idle(pid: int, limit: float, window: float = 1.0, busy: float = 0.1) -> float:
    """Seconds until the process tree uses less than ``busy`` of a core over ``window`` seconds (``limit`` at most)."""
    t0 = time.perf_counter()
    last = tree_cpu_seconds(pid)
    while time.perf_counter() - t0 < limit:
        await asyncio.sleep(window)
        now = tree_cpu_seconds(pid)
        if now - last < busy * window:
            return time.perf_counter() - t0 - window
        last = now
    return float("inf")


def small_response_ms(url: str, count: int = 20) -> float:
    """Median milliseconds for one of the app's small scripts (under 1 kB), asked again and again on one kept-alive
    connection, as a browser fetches its ~60 modules over 6 connections. With Nagle's algorithm on the server's
    connections (``streamlit run app.py``) each body waits for the client's delayed ACK, about 40 ms; serve.py
    turns it off (ui/asgi.py)."""
    import http.client
    import re
    from urllib.parse import urlsplit

    with urllib.request.urlopen(url + "/", timeout=10) as r:
        html = r.read().decode()
    scripts = re.findall(r'href="\./(static/js/[^"]+\.js)"', html)
    small = []
    for path in scripts:
        with urllib.request.urlopen(f"{url}/{path}", timeout=10) as r:
            if len(r.read()) < 1024:
                small.append(path)
    host = urlsplit(url)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=10)
    times = []
    try:
        for i in range(count):
            t = time.perf_counter()
            conn.request("GET", "/" + small[i % len(small)])
            conn.getresponse().read()
            times.append((time.perf_counter() - t) * 1000)
    finally:
        conn.close()
    return statistics.median(times[1:])


async def until_busy(pid: int, limit: float, cores: float, window: float = 1.0) -> float:
    """Seconds until the process tree uses at least ``cores`` cores over ``window`` seconds (``limit`` at most)."""
    t0 = time.perf_counter()
    last = tree_cpu_seconds(pid)
    while time.perf_counter() - t0 < limit:
        await asyncio.sleep(window)
        now = tree_cpu_seconds(pid)
        if now - last >= cores * window:
            return time.perf_counter() - t0
        last = now
    raise SystemExit(f"the heavy runs never kept the server at {cores:g} cores within {limit:.0f} s")


async def ninth_session(url: str, rss: RssSampler, args) -> int:
    """Eight heavy runs running or queued; a ninth user opens the Datasets page, timed; then the eight leave."""
    from playwright.async_api import async_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is not installed (`make chromium`)")
    t0 = time.perf_counter()

    def say(msg: str):
        print(f"[{time.perf_counter() - t0:6.1f} s] {msg}", flush=True)

    async def renders(browser, count: int, label: str, times: list, busy: list | None = None,
                      parts: list | None = None, cpu: list | None = None):
        """The ninth user: ``--new-browsers`` new browsers (each an empty HTTP cache) open the Datasets page one
        after another, then the last reloads it until ``count`` renders (every load is a new server session; the
        app's scripts now come from the browser's cache). ``cpu`` receives each render's CPU seconds in the ninth
        browser and in the server (its process and children)."""
        ctx = None
        try:
            for i in range(count):
                if i < fresh:
                    if ctx is not None:
                        await ctx.close()
                    ctx = await browser.new_context(viewport={"width": 1400, "height": 1400})
                    await ctx.add_init_script(SEEN)
                    page = await ctx.new_page()
                stages: dict = {}
                if busy is not None:  # the server's load when the user arrives (asking the heavy pages instead
                    c0, w0 = tree_cpu_seconds(rss.proc.pid), time.perf_counter()  # waits for their starved browser)
                    await asyncio.sleep(1.0)
                    busy.append((tree_cpu_seconds(rss.proc.pid) - c0) / (time.perf_counter() - w0))
                c0 = (tree_cpu(probe_procs), tree_cpu_seconds(rss.proc.pid))
                try:
                    times.append(await render_datasets(page, url, args.probe_timeout, stages))
                    if parts is not None:
                        parts.append(stages)
                    if cpu is not None:
                        cpu.append((tree_cpu(probe_procs) - c0[0], tree_cpu_seconds(rss.proc.pid) - c0[1]))
                except Exception as e:  # noqa: BLE001 (a timeout or an error element is a failed render)
                    failures.append(f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
                    say(f"{label}, render {i + 1}: FAILED {failures[-1]}")
                    continue
                note = "" if busy is None else f"; the server used {busy[-1]:.2f} cores over the second before"
                say(f"{label}, render {i + 1} ({'new browser' if i < fresh else 'reload'}): Datasets page in "
                    f"{times[-1]:.2f} s (" + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()) + f"){note}")
        finally:
            if ctx is not None:
                await ctx.close()

    fresh = args.new_browsers
    failures, heavy = [], []
    async with async_playwright() as p:
        # the eight heavy users' pages in a browser of their own: in a classroom they run on the users' own machines,
        # here they share the server's cores, so by default their browser only gets what the ninth user's browser
        # and the server leave (--heavy-browser-nice 0 puts it on a par)
        before = {q.pid for q in psutil.Process().children(recursive=True)}
        heavy_browser = await p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        heavy_procs = [q for q in psutil.Process().children(recursive=True) if q.pid not in before]

        def renice_heavy_browser():
            """Every thread of the heavy browser's processes at the niceness asked (on Linux a niceness belongs to
            one thread: setting a process's changes only its main thread, and chromium starts its others first),
            and the browser's scheduling group too: Playwright starts chromium in a session of its own, and with
            autogroups (/proc/sys/kernel/sched_autogroup_enabled) a session's threads share one group that the
            kernel weighs against the server's by the group's niceness alone, not by the threads'."""
            if args.heavy_browser_nice <= 0:
                return
            for root in list(heavy_procs):
                try:
                    with open(f"/proc/{root.pid}/autogroup", "w") as f:
                        f.write(str(args.heavy_browser_nice))
                except OSError:  # no autogroups on this kernel, or the process ended
                    pass
                try:
                    for q in [root, *root.children(recursive=True)]:
                        for t in q.threads():
                            try:
                                now = os.getpriority(os.PRIO_PROCESS, t.id)
                                os.setpriority(os.PRIO_PROCESS, t.id, max(now, args.heavy_browser_nice))
                            except OSError:
                                pass
                except psutil.NoSuchProcess:
                    pass

        renice_heavy_browser()
        before = {q.pid for q in psutil.Process().children(recursive=True)}
        browser = await p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        probe_procs = [q for q in psutil.Process().children(recursive=True) if q.pid not in before]

        def tree_cpu(roots) -> float:
            procs = {}  # each process once: the roots include their own descendants
            for root in roots:
                try:
                    procs.update((q.pid, q) for q in [root, *root.children(recursive=True)])
                except psutil.NoSuchProcess:
                    pass
            return live_cpu_seconds(procs.values())
        try:
            first, idle, idle_parts, idle_cpu = [], [], [], []
            small_ms = small_response_ms(url)
            await renders(browser, 1, "first render after the server started (page imports)", first)
            await renders(browser, fresh + 3, "idle server", idle, parts=idle_parts, cpu=idle_cpu)
            rss.mark()
            for i in range(1, args.sessions + 1):
                ctx = await heavy_browser.new_context(viewport={"width": 1400, "height": 1600})
                if args.still_heavy:  # no animation frames to draw while the run goes on (spinners, running icon)
                    await ctx.add_init_script(STILL)
                heavy.append((ctx, await ctx.new_page()))
            renice_heavy_browser()
            # all eight users arrive at once (one after another, each page would wait for the niced browser while
            # the runs already started compute, and most runs would be over before the last page opened)
            t_open = time.perf_counter()
            await asyncio.gather(*(
                page.goto(f"{url}/?ds={args.dataset}&n={args.n}&algo={args.algo}&reps={args.reps:g}"
                          f"&nseed={args.seed0 + i}" + (f"&seed={args.seed0 + i}" if args.own_data else ""),
                          wait_until="commit", timeout=args.timeout * 1000)
                for i, (_, page) in enumerate(heavy, 1)))
            say(f"the {args.sessions} heavy sessions' pages were requested in {time.perf_counter() - t_open:.1f} s")
            renice_heavy_browser()
            # the runs have started when the server computes on both cores (the heavy pages' own state lags: their
            # browser only gets what the server and the ninth browser leave)
            started = await until_busy(rss.proc.pid, limit=args.timeout, cores=args.busy_cores)
            say(f"the server computes ({args.busy_cores:g}+ cores) {started:.1f} s after the {args.sessions} heavy "
                "sessions opened")
            cpu0 = rss.cpu_seconds("server")
            times, busy, parts, load_cpu = [], [], [], []
            bcpu0 = (tree_cpu(heavy_procs), tree_cpu(probe_procs))
            t_probe = time.perf_counter()
            await renders(browser, args.probes, "ninth session", times, busy, parts, load_cpu)
            probe_wall = time.perf_counter() - t_probe
            probe_cpu = rss.cpu_seconds("server") - cpu0
            browser_cpu = (tree_cpu(heavy_procs) - bcpu0[0], tree_cpu(probe_procs) - bcpu0[1])
            done = sum([await pg.get_by_text("Discovery complete").count() for _, pg in heavy])
            for i, (_, pg) in enumerate(heavy, 1):
                if await pg.locator(ERRORS).count():
                    failures.append(f"heavy session {i}: " + (await pg.locator(ERRORS).first.inner_text())[:160])
            t_close = time.perf_counter()
            for ctx, _ in heavy:
                await ctx.close()
            heavy.clear()
            say(f"closed the {args.sessions} heavy sessions ({done} had finished); waiting for the server to idle")
            to_idle = time.perf_counter() - t_close + await until_idle(rss.proc.pid, limit=60)
        finally:
            for ctx, _ in heavy:
                await ctx.close()
            await browser.close()
            await heavy_browser.close()
    mb = 1024 ** 2
    many = f", median of {fresh}" if fresh > 1 else ""

    def median(xs) -> float:
        return statistics.median(list(xs))

    print(f"\n{args.sessions} heavy sessions ({args.algo} on {args.dataset}, n = {args.n:,}, per-round ε = {args.reps:g}) "
          f"+ a ninth session opening the Datasets page ({os.cpu_count()} cores; the heavy sessions' browser at "
          f"niceness {max(args.heavy_browser_nice, 0)}{', animations off' if args.still_heavy else ''}, the ninth "
          "session's and the server at their own)")
    print(f"{'measure':<58} {'value':>10}")
    print(f"{'a small script on a kept-alive connection, idle, median (ms)':<58} {small_ms:10.1f}")
    if first:
        print(f"{'Datasets page, first render after the server started (s)':<58} {first[0]:10.2f}")
    if idle:
        print(f"{'Datasets page, idle server: new browser' + many + ' (s)':<58} {median(idle[:fresh]):10.2f}")
        print(f"{'Datasets page, idle server: reloads, median (s)':<58} {median(idle[fresh:] or idle):10.2f}")
    if times:
        warm = times[fresh:] or times
        print(f"{'Datasets page, ninth session under load: new browser' + many + ' (s)':<58} "
              f"{median(times[:fresh]):10.2f}" + (f"   ({', '.join(f'{t:.2f}' for t in times[:fresh])})"
                                                  if fresh > 1 else ""))
        print(f"{'Datasets page, ninth session under load: reloads, median (s)':<58} {statistics.median(warm):10.2f}"
              + (f"   {statistics.median(warm) / median(idle[fresh:] or idle):5.1f}× idle" if idle else ""))
        print(f"{'Datasets page, ninth session under load: max (s)':<58} {max(times):10.2f}")
        print(f"{'renders under 1 s':<58} {sum(t < 1.0 for t in times):>6d} of {len(times)}")
        for what, ps in (("idle server", idle_parts[fresh:]), ("under load", parts[fresh:])):
            if ps:
                print(f"{'reloads ' + what + ', median s to: ' + ', '.join(ps[0]):<58} "
                      + " ".join(f"{statistics.median(p[k] for p in ps):.2f}" for k in ps[0]))
        # a new browser compiles Streamlit's scripts before it can ask the server for anything (the HTML's
        # DOMContentLoaded): that part is the browser's own CPU, which on a classroom's laptops is not the server's
        for what, ps in (("idle server", idle_parts[:fresh]), ("under load", parts[:fresh])):
            if ps:
                print(f"{'new browser' + many + ' ' + what + ', s to: ' + ', '.join(ps[0]):<58} "
                      + " ".join(f"{median(p[k] for p in ps):.2f}" for k in ps[0]))
        if idle_parts and parts:
            print(f"{'new browser' + many + ': under load minus idle server (s)':<58} "
                  f"{median(times[:fresh]) - median(idle[:fresh]):10.2f}")
        # where a render's work is done (the browser's share is, in a classroom, the user's own machine); under
        # load the server's CPU is mostly the heavy runs', so only the browser's is shown there
        if idle_cpu:
            print(f"{'CPU s, ninth browser / server, idle: new browser':<58} "
                  f"{median(c[0] for c in idle_cpu[:fresh]):6.2f} / {median(c[1] for c in idle_cpu[:fresh]):.2f}")
            if len(idle_cpu) > fresh:
                print(f"{'CPU s, ninth browser / server, idle: reloads, median':<58} "
                      f"{median(c[0] for c in idle_cpu[fresh:]):6.2f} / "
                      f"{median(c[1] for c in idle_cpu[fresh:]):.2f}")
        if load_cpu:
            print(f"{'CPU s, ninth browser, under load: new browser; reloads median':<58} "
                  f"{median(c[0] for c in load_cpu[:fresh]):6.2f}; "
                  f"{median(c[0] for c in load_cpu[fresh:] or load_cpu):.2f}")
        print(f"{'server cores over the second before each render (min/max)':<58} {min(busy):6.2f} / {max(busy):.2f}")
        print(f"{'heavy runs still running or queued after the renders':<58} {args.sessions - done:>6d} of "
              f"{args.sessions}")
    print(f"{'server CPU s while the ninth session rendered':<58} {probe_cpu:10.1f}")
    print(f"{'seconds the ninth session spent rendering':<58} {probe_wall:10.1f}")
    print(f"{'CPU s meanwhile: heavy sessions browser, ninth browser':<58} {browser_cpu[0]:6.1f} {browser_cpu[1]:5.1f}")
    print(f"{'server peak RSS (MB)':<58} {rss.peak / mb:10.0f}")
    print(f"{'seconds from closing the heavy sessions to an idle server':<58} {to_idle:10.1f}")
    print(f"\nfailed renders: {len(failures)}")
    return 0 if times and not failures else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--dataset", default=None, help="default: alarm (ninth session), sachs (--complete)")
    ap.add_argument("--n", type=int, default=None, help="default: 2,000,000 (ninth session: the eight runs outlast the probes; at 500,000 they had "
                         "ended before the last probe), 100,000 (--complete)")
    ap.add_argument("--algo", default="priv-pc")
    ap.add_argument("--reps", type=float, default=1.0, help="per-round ε")
    ap.add_argument("--seed0", type=int, default=0,
                    help="noise seeds are seed0 + 1..sessions (baselines: + 1000, + 1001)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per session")
    ap.add_argument("--probe-timeout", type=float, default=120)
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    ap.add_argument("--runs", type=int, default=0, help="soak mode: this many varied runs, one after another")
    ap.add_argument("--cache-mb", type=float, default=256, help="soak mode: CGD_CACHE_MB given to the server")
    ap.add_argument("--core-cache-mb", type=float, default=128,
                    help="soak mode: CGD_CORE_CACHE_MB given to the server")
    ap.add_argument("--busy-cores", type=float, default=0.8,
                    help="ninth-session mode: server cores that show the heavy runs are computing")
    ap.add_argument("--probes", type=int, default=10, help="ninth-session mode: Datasets-page renders to time")
    ap.add_argument("--script", default="serve.py",
                    help="what `streamlit run` serves: serve.py (as `make app`) or app.py (without serve.py's "
                         "middleware)")
    ap.add_argument("--new-browsers", type=int, default=1,
                    help="ninth-session mode: how many of the renders (the first) are new browsers, each with an "
                         "empty HTTP cache (medians are printed); the idle server gets as many, then 3 reloads")
    ap.add_argument("--own-data", type=int, default=1,
                    help="ninth-session mode: 1 (default) gives each heavy session data of its own (its own sampling "
                         "seed), so each run counts its own tables; 0 shares the data, and after the first run the "
                         "others only add noise to the shared tables")
    ap.add_argument("--still-heavy", type=int, default=1,
                    help="ninth-session mode: 1 (default) switches off animations in the heavy sessions' pages, whose "
                         "spinners would redraw on the server's cores all through their runs; 0 leaves them on")
    ap.add_argument("--heavy-browser-nice", type=int, default=19,
                    help="ninth-session mode: niceness of the browser showing the eight heavy sessions (they would "
                         "run on the users' own machines; 0 = same priority as everything else)")
    ap.add_argument("--complete", action="store_true",
                    help="wait for every heavy run to finish (latency under load) instead of the ninth-session probe")
    ap.add_argument("--screenshot", default=str(ROOT / "tests" / "artifacts" / "load_session1.png"),
                    help="full-page screenshot of load session #1 ('none' to skip)")
    args = ap.parse_args()
    if args.dataset is None:
        args.dataset = "sachs" if args.complete or args.runs else "alarm"
    if args.n is None:
        args.n = 100_000 if args.complete or args.runs else 2_000_000
    port = args.port or free_port()
    mode = "soak" if args.runs else "complete" if args.complete else "ninth"
    log_path = ROOT / "bench" / "out" / f"load_streamlit_{mode}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    if args.runs:
        os.environ["CGD_CACHE_MB"] = f"{args.cache_mb:g}"
        os.environ["CGD_CORE_CACHE_MB"] = f"{args.core_cache_mb:g}"
    with log_path.open("w") as log:
        proc, url = start_server(port, log, args.script)
        rss = RssSampler(proc.pid)
        rss.start()
        try:
            code = asyncio.run(soak(url, rss, args) if args.runs else bench(url, rss, args) if args.complete
                               else ninth_session(url, rss, args))
        finally:
            rss.stop.set()
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
    if proc.returncode not in (0, -15, None):
        print(f"streamlit exited with {proc.returncode}; see {log_path}")
    sys.exit(code)


if __name__ == "__main__":
    main()
