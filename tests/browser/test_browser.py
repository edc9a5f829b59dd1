"""The real app in a real browser: Debian's chromium driven by Playwright against `streamlit run`."""
import re

import pytest

from conftest import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-pages")]  # tests/conftest.py


def wait_idle(page, timeout=60_000):
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached",
                                                                                        timeout=timeout)


def test_discover_asia_in_browser(streamlit_server, browser):
    from playwright.sync_api import expect

    ctx = browser.new_context(fresh=True, viewport={"width": 1500, "height": 2200})  # a new user's browser: every
    page = ctx.new_page()  # request it makes is seen
    external = []
    page.on("request", lambda r: external.append(r.url) if not r.url.startswith(
        (streamlit_server, "data:", "blob:", "about:")) else None)
    page.goto(streamlit_server + "/?ds=asia&n=20000&seed=0", wait_until="domcontentloaded")
    wait_idle(page)
    page.get_by_role("button", name="Run discovery").click()
    wait_idle(page)
    expect(page.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
    metrics = page.locator("[data-testid='stMetric']")
    for label in ("Skeleton F1", "Arc F1", "SHD", "CI tests"):
        expect(metrics.filter(has_text=label).first).to_be_visible()
    f1 = metrics.filter(has_text="Skeleton F1").first.locator("[data-testid='stMetricValue']").inner_text()
    assert 0.5 <= float(f1) <= 1.0
    graph = page.locator("[data-testid='stPlotlyChart']").first
    expect(graph.locator(".main-svg").first).to_be_attached(timeout=30_000)
    # edge legend and node labels are drawn
    expect(graph.get_by_text("correct", exact=False).first).to_be_attached()
    expect(graph.get_by_text("either").first).to_be_attached()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "discover_asia.png"))
    # the interactive pyvis view renders offline (vis-network inlined)
    page.get_by_role("tab", name="Interactive view").click()
    frame = page.frame_locator("iframe[title='Interactive learned graph']")
    expect(frame.locator("#mynetwork canvas")).to_be_attached(timeout=30_000)
    n_nodes = frame.locator("#mynetwork").evaluate("el => network.body.data.nodes.length")
    assert n_nodes == 8
    expect(page).to_have_url(re.compile(r"discover_tab=Interactive\+view"))  # a reload or a shared link opens it
    assert not external, f"requests left the machine: {external[:5]}"
    ctx.close()


def test_upload_bad_then_good_csv(streamlit_server, browser, tmp_path):
    """A bad upload gets a clear message (no traceback); a good one is analysed; the app keeps working."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = ctx.new_page()
    page.goto(streamlit_server + "/?src=Upload+a+CSV", wait_until="domcontentloaded")
    wait_idle(page)
    expect(page.get_by_text("Upload a CSV file in the sidebar to start")).to_be_visible(timeout=30_000)
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("a,b\ncaf\xe9,1\nthé,2\n".encode("latin-1"))
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(bad))
    wait_idle(page)
    err = page.locator("[data-testid='stAlertContentError']")
    expect(err.first).to_be_visible(timeout=30_000)
    assert "UTF-8" in err.first.inner_text()
    assert page.locator("[data-testid='stException']").count() == 0
    good = tmp_path / "survey.csv"
    rows = ["age,sex,edu"] + [f"{['young', 'adult', 'old'][i % 3]},{['M', 'F'][(i // 3) % 2]},"
                              f"{['high', 'uni'][(i * 7 // 5) % 2]}" for i in range(600)]
    good.write_text("\n".join(rows) + "\n")
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(good))
    wait_idle(page)
    expect(page.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("no known ground truth")).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(ARTIFACTS / "discover_upload.png"))
    ctx.close()


def test_manual_mode_runs_only_on_click(streamlit_server, browser):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.goto(streamlit_server + "/?auto=false&ds=cancer", wait_until="domcontentloaded")
    wait_idle(page)
    expect(page.get_by_text("to learn the graph")).to_be_visible(timeout=30_000)
    assert page.get_by_text("Discovery complete").count() == 0
    page.get_by_role("button", name="Run discovery").click()
    expect(page.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
    assert page.get_by_text("Page not found").count() == 0
    ctx.close()


def test_back_returns_to_a_page_with_its_settings(streamlit_server, browser):
    """Back after leaving a page through the sidebar opens it with the settings of its link (ui/history.py): the
    address of the page left keeps them, and the page reads them. Three rounds, two pages: the entry without the
    settings appeared on about half of the page changes. Then a link naming a setting by value (ui/links.py)."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    nav = page.locator("[data-testid='stSidebarNavLink']")
    for start, settings, other, heading, shown in (
            ("/", "?ds=cancer&n=3000", "Datasets", "Datasets",
             page.locator("[data-testid='stMetric']").filter(has_text="Dataset").filter(has_text="cancer")),
            ("/score", "?sds=sachs&sn=1000", "Learn", "Learn",
             page.locator("code").filter(has_text="--dataset sachs --n 1000"))):  # the command of the run
        page.goto(streamlit_server + start + settings, wait_until="domcontentloaded")
        wait_idle(page, 120_000)
        for _ in range(3):
            expect(shown.first).to_be_visible(timeout=60_000)
            nav.filter(has_text=other).click()
            expect(page.get_by_role("heading", name=heading).first).to_be_visible(timeout=30_000)
            wait_idle(page)
            page.go_back()
            expect(page).to_have_url(streamlit_server + start + settings, timeout=30_000)
            wait_idle(page)
        expect(shown.first).to_be_visible(timeout=60_000)
    # a link naming a setting by value opens again with the control's label, in place of the link (ui/links.py):
    # the address keeps it, and Back leads to the page before, not to the old form
    before = page.url
    page.goto(streamlit_server + "/score?sds=sachs&sn=1000&salgo=noleaks", wait_until="domcontentloaded")
    expect(page).to_have_url(streamlit_server + "/score?sds=sachs&sn=1000&salgo=DP-NOTEARS+%28noleaks%29",
                             timeout=30_000)
    expect(page.locator("code").filter(has_text="--algo noleaks").first).to_be_visible(timeout=60_000)
    page.go_back()
    expect(page).to_have_url(before, timeout=30_000)
    page.wait_for_load_state("load")  # a page loaded anew (Back crosses documents here), drawn before it is left
    expect(page.locator("code").filter(has_text="--algo notears").first).to_be_visible(timeout=60_000)
    wait_idle(page)
    assert page.locator("[data-testid='stException']").count() == 0
    ctx.close()


def test_private_run_ledger_and_noise_view_in_browser(streamlit_server, browser):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    page = ctx.new_page()
    page.goto(streamlit_server + "/?algo=priv-pc&ds=sachs&n=20000&budget_mode=per-round%20%CE%B5%20(as%20in%20paper)&reps=1&nseed=1", wait_until="domcontentloaded")
    wait_idle(page, timeout=120_000)
    expect(page.get_by_text("Discovery complete")).to_be_visible(timeout=120_000)
    metrics = page.locator("[data-testid='stMetric']")
    eps = metrics.filter(has_text="Guaranteed ε").first.locator("[data-testid='stMetricValue']").inner_text()
    assert float(eps.replace(",", "")) > 0
    page.get_by_role("tab", name="Privacy ledger").click()
    expect(page.get_by_text("The guarantee (solid)").first).to_be_attached(timeout=30_000)
    expect(page.get_by_text("as in reference code").first).to_be_attached()
    page.get_by_role("tab", name="Noise vs threshold").click()
    expect(page.get_by_text("noisy value compared").first).to_be_attached(timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "discover_priv_pc.png"))
    # the Budget page renders its views, one at a time; opening one does not move the tab bar the user clicked
    # (a click empties the panel at once: the page shrank and the browser scrolled the bar ~280 px down)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(streamlit_server + "/budget?bn=20000", wait_until="domcontentloaded")
    wait_idle(page, timeout=180_000)
    expect(page.get_by_text("CURATE: planned (re-optimised").first).to_be_attached(timeout=120_000)
    bar = page.get_by_role("tablist").first
    page.mouse.move(700, 450)
    page.mouse.wheel(0, bar.bounding_box()["y"] - 80)
    expect(bar).to_be_in_viewport()
    page.wait_for_timeout(300)
    top = bar.bounding_box()["y"]
    for tab, shown in (("Lemma 1 and objective (2)", "T = 0.05, β₁ = β₂"), ("Priv-PC: sub-sampling and noise",
                                                                          "Sub-sample m"),
                       ("As in paper vs guaranteed", "What each run can promise")):
        page.get_by_role("tab", name=tab).click()
        panel = page.get_by_role("tabpanel")
        expect(panel.get_by_text(shown).first).to_be_visible(timeout=30_000)
        expect(panel.locator("[data-testid='stPlotlyChart'] .main-svg").first).to_be_attached(timeout=30_000)
        wait_idle(page)
        page.wait_for_timeout(500)  # the charts drawn, the run over: the page has its final height
        assert abs(bar.bounding_box()["y"] - top) < 5, (tab, top, bar.bounding_box()["y"])
    expect(page.get_by_text("What each run can promise").first).to_be_visible(timeout=30_000)
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(ARTIFACTS / "budget.png"))
    ctx.close()


def test_ledger_table_reads_whole_at_1400_wide_in_browser(streamlit_server, browser):
    """At 1,400 × 900 the ledger's table fits its column, and every total's reason is shown whole (its last column
    was cut at the window's edge, one line of each reason, behind a sideways scroll)."""
    from playwright.sync_api import expect

    from cgdcore.privacy.ledger import STATUS

    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    page.goto(streamlit_server + "/?ds=sachs&algo=priv-pc&eps=1&nseed=0", wait_until="domcontentloaded")
    wait_idle(page, timeout=120_000)
    page.get_by_role("tab", name="Privacy ledger").click()
    panel = page.get_by_role("tabpanel").filter(has_text="Every release the run made")
    table = panel.locator("[data-testid='stTable'], [data-testid='stDataFrame']").first
    expect(table).to_be_visible(timeout=30_000)
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    wide = table.evaluate("t => [t, ...t.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth + 1 "
                          "&& getComputedStyle(e).overflowX !== 'visible').map(e => [e.scrollWidth, e.clientWidth])")
    assert not wide and box["x"] + box["width"] <= 1400, f"scrolls sideways: {wide}, {box}"
    for reason in (STATUS["realised"], STATUS["as in paper"]):  # in full, in cells inside the window
        cells = table.locator("td").filter(has_text=reason)
        expect(cells.first).to_be_visible()
        for cb in (c.bounding_box() for c in cells.all()):
            assert box["x"] <= cb["x"] and cb["x"] + cb["width"] <= box["x"] + box["width"] + 1, (reason, cb, box)
    page.screenshot(path=str(ARTIFACTS / "discover_ledger_1400.png"))
    ctx.close()


def test_demo_result_cards_are_equal_in_height_in_browser(streamlit_server, browser):
    """The Demo's bordered cards, one per run, are as tall as the row's tallest (at 1,400 × 900 they were 280 to 437 px
    tall: a long note or a title on two lines made a card taller than its neighbours)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    page.goto(streamlit_server + "/demo?scenario=epsilon-cost", wait_until="domcontentloaded")
    wait_idle(page, timeout=240_000)
    page.locator("[data-testid='stMetric']").first.wait_for(state="attached", timeout=60_000)
    cards = page.locator("[data-testid='stVerticalBlock']").evaluate_all(
        "els => els.filter(e => getComputedStyle(e).borderTopWidth !== '0px' && e.querySelector(\"[data-testid="
        "'stMetric']\")).map(e => { const r = e.getBoundingClientRect(); return [r.top, r.height]; })")
    assert len(cards) == 4, cards
    assert max(h for _, h in cards) - min(h for _, h in cards) <= 1 and len({round(t) for t, _ in cards}) == 1, cards
    page.screenshot(path=str(ARTIFACTS / "demo_cards_1400.png"))
    ctx.close()


def test_local_privacy_page_and_its_curve_in_browser(streamlit_server, browser):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1500, "height": 1600})
    page = ctx.new_page()
    page.goto(streamlit_server + "/local?lscen=Asia+network+%288+binary+variables%29&ln=5000&lmech=krr-cwise"
              "&lpmax=0.5&lalpha=0.05&lcal=neff", wait_until="domcontentloaded")
    wait_idle(page, 120_000)
    metrics = page.locator("[data-testid='stMetric']")
    expect(metrics.filter(has_text="True ε-LDP per record").first).to_be_visible(timeout=60_000)
    page.get_by_role("tab", name="Discovery").click()
    expect(page.get_by_text("PC finished")).to_be_visible(timeout=120_000)
    page.get_by_role("tab", name="Privacy–utility curve").click()
    page.get_by_role("button", name="Run the comparison").click()
    expect(page.get_by_role("button", name="The runs (CSV)")).to_be_visible(timeout=240_000)
    chart = page.locator("[data-testid='stPlotlyChart']").filter(has_text="vs privacy level")
    expect(chart.first).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "local_curve.png"))
    ctx.close()


def test_encrypted_page_warm_run_in_browser(streamlit_server, browser):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1500, "height": 1400})
    page = ctx.new_page()
    page.goto(streamlit_server + "/encrypted?fmode=warm&fn=5000&fmaxo=0", wait_until="domcontentloaded")
    wait_idle(page, 120_000)
    page.get_by_role("button", name="Run encrypted PC").click()
    metric = page.locator("[data-testid='stMetric']").filter(has_text="CI decisions = plaintext")
    expect(metric.first).to_be_visible(timeout=240_000)
    expect(metric.first).to_contain_text("100.0%")
    expect(page.get_by_role("heading", name="Who holds what")).to_be_visible()
    page.get_by_role("tab", name="Time and size").click()
    expect(page.get_by_text("valid at 128-bit security")).to_be_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "encrypted.png"), full_page=True)
    ctx.close()


def test_tradeoff_sweep_with_progress_and_downloads_in_browser(streamlit_server, browser):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1500, "height": 1300}, accept_downloads=True)
    page = ctx.new_page()
    page.goto(streamlit_server + "/tradeoff?tods=sachs&tods=asia&ton=20000&toalg=priv-pc&toalg=svt-pc&toalg=em-pc"
              "&toalg=pc%5Bci_test%3Dkendall%5D&toeps=logspace%3A-2%3A1.5%3A8&toreps=3",
              wait_until="domcontentloaded")
    wait_idle(page, 120_000)
    runs = page.locator("[data-testid='stMetric']").filter(has_text="Runs in this sweep")
    expect(runs).to_contain_text("146")
    page.get_by_role("button", name="Run sweep").click()
    expect(page.get_by_role("tab", name="Utility vs ε")).to_be_visible(timeout=240_000)
    expect(page.locator("[data-testid='stMetric']").filter(has_text="Already computed")).to_contain_text("146")
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
    page.get_by_role("tab", name="Table and downloads").click()
    with page.expect_download() as dl:
        page.get_by_role("button", name="Utility figure (HTML)").click()
    html = open(dl.value.path(), encoding="utf-8").read()
    assert "<title>Privacy-utility trade-off</title>" in html and len(html) > 1_000_000  # plotly.js inlined
    assert "<script src=\"http" not in html and "Plotly.newPlot" in html
    page.get_by_role("tab", name="Utility vs ε").click()
    assert page.locator("[data-testid='stException']").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "tradeoff.png"), full_page=True)
    ctx.close()


LABEL_RECTS = """els => els.map(e => { const r = e.getBoundingClientRect();
    return [e.textContent, r.left, r.top, r.right, r.bottom]; })"""


def _overlapping(rects, pad=0.5):
    out = []
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            if min(a[3], b[3]) - max(a[1], b[1]) > pad and min(a[4], b[4]) - max(a[2], b[2]) > pad:
                out.append((a[0], b[0]))
    return out


def _graph_labels(page, n_labels, svg=False):
    """The rendered node labels of the first graph on the page (a plotly chart, or with ``svg`` the static SVG of
    the Datasets page): [text, left, top, right, bottom] each, plus the chart's own box."""
    graph = page.locator("svg[role='img']" if svg else "[data-testid='stPlotlyChart']").first
    labels = graph.locator("text" if svg else "g.textpoint text")
    labels.nth(n_labels - 1).wait_for(state="attached", timeout=60_000)
    graph.scroll_into_view_if_needed()
    return labels.evaluate_all(LABEL_RECTS), graph.bounding_box()


def test_alarm_graph_labels_do_not_overlap_in_browser(streamlit_server, browser):
    """Alarm (37 nodes, 12 in its widest layer) on Discover (plotly) and on Datasets (static SVG): every node label
    is drawn, no two label boxes overlap on screen and all of them lie inside the chart."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1500, "height": 1400})
    page = ctx.new_page()
    page.goto(streamlit_server + "/?ds=alarm&n=20000&seed=0", wait_until="domcontentloaded")
    wait_idle(page, 120_000)
    for url, n in (("/?ds=alarm&n=20000&seed=0", 2 * 37), ("/datasets?dsview=alarm", 37)):
        if url.startswith("/datasets"):
            page.goto(streamlit_server + url, wait_until="domcontentloaded")
            wait_idle(page, 120_000)
        rects, box = _graph_labels(page, n, svg=url.startswith("/datasets"))
        assert len(rects) == n and {r[0] for r in rects} >= {"HYPOVOLEMIA", "LVEDVOLUME", "VENTLUNG"}
        assert all(r[3] - r[1] > 5 for r in rects)  # really drawn
        assert _overlapping(rects) == [], url
        inside = [r[0] for r in rects if not (box["x"] <= r[1] and r[3] <= box["x"] + box["width"]
                                              and box["y"] <= r[2] and r[4] <= box["y"] + box["height"])]
        assert inside == [], f"{url}: labels outside the chart: {inside}"
    assert page.locator("[data-testid='stException']").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "datasets_alarm.png"))
    # Andes' graph (1,081 px wide) is scaled into the page's column: it ran past the window's edge
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.locator("[data-testid='stSelectbox']").filter(has_text="Show the true graph of").first.click()
    page.get_by_role("option", name="andes", exact=True).click()
    expect(page.locator("svg[role='img']").first).to_have_attribute("aria-label", "True DAG of andes")
    widths = page.locator("svg[role='img']").first.evaluate(
        "s => [s.getBoundingClientRect().right, s.closest('[data-testid=stElementContainer]')"
        ".getBoundingClientRect().right, s.closest('[data-testid=stMain]').scrollWidth, "
        "s.closest('[data-testid=stMain]').clientWidth]")
    assert widths[0] <= widths[1] + 1 and widths[2] <= widths[3], widths  # inside its column; no sideways scroll
    ctx.close()


def test_sachs_interactive_view_shows_the_whole_graph_and_a_shorter_tab_keeps_the_bar(streamlit_server, browser):
    """The pyvis view opens fitted: every node of Sachs is inside the visible canvas. Then, scrolled to the page's
    foot, a shorter tab opens without moving the tab bar (ui.widgets: the bar jumped from the window's top edge to
    860 px down), and leaving the page lets go of the height kept for it."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = ctx.new_page()
    page.goto(streamlit_server + "/?ds=sachs&n=5000&seed=0", wait_until="domcontentloaded")
    wait_idle(page, 120_000)
    page.get_by_role("tab", name="Interactive view").click()
    frame = page.frame_locator("iframe[title='Interactive learned graph']")
    frame.locator("#mynetwork canvas").wait_for(state="attached", timeout=30_000)
    page.wait_for_timeout(500)
    seen = frame.locator("#mynetwork").evaluate("""el => {
        const c = el.querySelector('canvas'), pos = network.getPositions(), out = [];
        for (const id in pos) { const b = network.getBoundingBox(id), a = network.canvasToDOM({x: b.left, y: b.top}),
              z = network.canvasToDOM({x: b.right, y: b.bottom}); out.push([a.x, a.y, z.x, z.y]); }
        return {w: c.clientWidth, h: c.clientHeight, boxes: out}; }""")
    assert len(seen["boxes"]) == 11 and seen["w"] > 200 and seen["h"] > 200
    for x0, y0, x1, y1 in seen["boxes"]:
        assert 0 <= x0 < x1 <= seen["w"] and 0 <= y0 < y1 <= seen["h"]

    wait_idle(page)
    bar = page.get_by_role("tablist").first
    # the page's foot, once the page has stopped growing (a late-drawn part would move the bar before the click)
    main = page.locator(".stMain")
    layout = "m => [m.scrollTop, m.scrollHeight, m.clientHeight]"
    last = None
    for _ in range(20):
        main.evaluate("m => { m.scrollTop = m.scrollHeight; }")
        page.wait_for_timeout(300)
        now = (bar.bounding_box()["y"], main.evaluate(layout))
        if now == last:
            break
        last = now
    top, before = last
    page.get_by_role("tab", name="CI-test log").click()
    expect(page.get_by_text("Only tests that removed an edge").first).to_be_attached(timeout=30_000)
    wait_idle(page)
    page.wait_for_timeout(500)
    held = page.locator("[data-testid='stMainBlockContainer']").evaluate("b => b.style.minHeight")
    assert abs(bar.bounding_box()["y"] - top) < 5, (top, bar.bounding_box()["y"], before, main.evaluate(layout), held)
    page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Datasets").click()
    expect(page.get_by_role("heading", name="Datasets").first).to_be_visible(timeout=30_000)
    assert page.locator("[data-testid='stMainBlockContainer']").evaluate("b => b.style.minHeight") == ""
    ctx.close()


@pytest.mark.parametrize("path", ["", "learn", "demo", "budget", "score", "local", "encrypted", "tradeoff",
                                  "datasets"])
def test_every_page_at_presentation_size(streamlit_server, browser, path):
    """Each page opened cold from its link at 1920×1080 renders, with a title and without an error box (the suite's
    every-page check), asking the server for nothing it does not have (serve.py tells the frontend the server's root:
    without it, a page's link first asked /<page>/_stcore/health, got a 404 and asked again 100 ms later); the
    screenshot is kept in tests/artifacts/pages/ for a person to look at."""
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    page = ctx.new_page()
    refused = []
    page.on("response", lambda r: r.status >= 400 and refused.append(f"{r.status} {r.url}"))
    page.goto(f"{streamlit_server}/{path}", wait_until="domcontentloaded")
    wait_idle(page, timeout=240_000)
    assert not refused
    assert page.url.split("?")[0] == f"{streamlit_server}/{path}"
    # every chart drawn (a plotly chart's SVG attached), then a moment for the last one to settle
    page.wait_for_function("() => [...document.querySelectorAll('.js-plotly-plot')].every(p => p.querySelector"
                           "('.main-svg'))", timeout=60_000)
    page.wait_for_timeout(300)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.locator("h1").count() >= 1
    # every tab is in view, none behind the tab bar's sideways scroll (Learn has eleven lessons)
    hidden = page.locator("[role='tablist']").evaluate_all("""lists => lists.flatMap(l => {
        const box = l.getBoundingClientRect();
        return [...l.querySelectorAll("[role='tab']")].filter(t => t.getBoundingClientRect().right > box.right + 1)
            .map(t => t.innerText); })""")
    assert not hidden, f"tabs out of view: {hidden}"
    out = ARTIFACTS / "pages"
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{path or 'discover'}.png"))
    ctx.close()
