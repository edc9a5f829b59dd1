"""Two users on one server: an uploaded CSV stays in the session that uploaded it, and the same bytes uploaded under
another name do not reveal the first upload."""
import json
import re

import pytest

from conftest import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser-leaving")]  # tests/conftest.py

A_COLS = ("secret_alpha", "secret_beta", "secret_gamma")
B_COLS = ("public_delta", "public_epsilon", "public_zeta", "public_eta")
FILE_INPUT = "[data-testid='stFileUploaderDropzoneInput']"
ERRORS = "[data-testid='stException'], [data-testid='stAlertContentError']"


def write_codes(path, cols, rows=200):
    """Integer codes with a chain x0 → x1 → … so PC has edges to draw (node labels are the column names)."""
    lines = [",".join(cols)]
    for i in range(rows):
        x = [(i * 7 + i // 3) % 3]
        for k in range(1, len(cols)):
            x.append((x[-1] + (1 if (i * (k + 3)) % 10 == 0 else 0)) % 3)
        lines.append(",".join(map(str, x)))
    path.write_text("\n".join(lines) + "\n")
    return path


def metric(page, label):
    """A metric's value (awaited with a long timeout: on a loaded machine the metrics are drawn seconds after the
    "Discovery complete" line above them)."""
    return page.locator("[data-testid='stMetric']").filter(has_text=label).first.locator(
        "[data-testid='stMetricValue']")


def assert_shows_only(page, own, other):
    """The graph's node labels (SVG text) carry the column names: the page holds its own, never the other's."""
    from playwright.sync_api import expect

    graph = page.locator("[data-testid='stPlotlyChart']").first
    for c in own:
        expect(graph.get_by_text(c, exact=True).first).to_be_attached(timeout=30_000)
    html = page.content()
    leaked = [c for c in other if c in html]
    assert not leaked, f"another session's columns are on this page: {leaked}"
    assert page.locator(ERRORS).count() == 0


def test_uploads_are_private_to_their_session(unbounded_server, browser, tmp_path):
    # A shared store for uploads (a process-wide cache or registry not keyed by session) would hand B the
    # secret_* graph or list A's file here, and the content/option assertions below would fail.
    from playwright.sync_api import expect

    from cgdcore.data import list_datasets

    streamlit_server = unbounded_server[0]  # the chain's one server (tests/conftest.py)
    a_csv = write_codes(tmp_path / "alice_private.csv", A_COLS)
    b_csv = write_codes(tmp_path / "bob_own.csv", B_COLS)
    # two users: A in the worker's reused tab, B in a browser context of its own (cookies, storage and cache apart)
    ctx_a = browser.new_context(viewport={"width": 1400, "height": 1600})
    ctx_b = browser.new_context(fresh=True, viewport={"width": 1400, "height": 1600}, accept_downloads=True)
    a, b = ctx_a.new_page(), ctx_b.new_page()
    try:
        # A uploads and runs discovery (auto-run)
        a.goto(streamlit_server + "/?src=Upload+a+CSV&maxord=2", wait_until="domcontentloaded")
        expect(a.get_by_text("Upload a CSV file in the sidebar to start")).to_be_visible(timeout=60_000)
        a.locator(FILE_INPUT).set_input_files(str(a_csv))
        expect(a.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
        expect(metric(a, "Variables")).to_have_text("3", timeout=60_000)
        expect(metric(a, "Dataset")).to_contain_text("alice_private", timeout=60_000)
        assert_shows_only(a, A_COLS, B_COLS)
        assert "src=Upload" in a.url

        # B opens exactly A's URL: the upload prompt, nothing of A's
        b.goto(a.url, wait_until="domcontentloaded")
        expect(b.get_by_text("Upload a CSV file in the sidebar to start")).to_be_visible(timeout=60_000)
        b.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached")
        html = b.content()
        assert not [c for c in A_COLS + ("alice_private",) if c in html]
        assert b.get_by_text("Discovery complete").count() == 0
        assert b.locator("[data-testid='stMetric']").count() == 0

        # B's dataset selector offers the bundled datasets only
        # (a switch of source is awaited by what it shows: a short run's "running" state may never reach the page's
        # DOM, when the browser handles its start and its end in one render)
        b.get_by_text("Bundled dataset", exact=True).click()
        expect(b.get_by_role("radio", name="Bundled dataset")).to_be_checked()
        expect(b.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
        b.locator("[data-testid='stSelectbox']").filter(has_text="Dataset").first.click()
        options = b.get_by_role("option")
        expect(options.first).to_be_visible(timeout=10_000)
        offered = set(options.all_inner_texts())
        b.keyboard.press("Escape")
        expect(options.first).to_be_hidden()
        assert offered and offered <= {i.name for i in list_datasets()}, offered
        assert not [o for o in offered if "alice" in o or "secret" in o or "upload" in o.lower()]
        # and B's result is B's own: the bundled default (asia), none of A's columns
        expect(metric(b, "Dataset")).to_have_text("asia", timeout=60_000)
        assert_shows_only(b, ("asia", "tub", "smoke"), A_COLS)

        # B uploads its own, different CSV
        b.get_by_text("Upload a CSV", exact=True).click()
        expect(b.get_by_role("radio", name="Upload a CSV")).to_be_checked()
        expect(b.get_by_text("Upload a CSV file in the sidebar to start")).to_be_visible(timeout=30_000)
        assert not [c for c in A_COLS if c in b.content()]
        b.locator(FILE_INPUT).set_input_files(str(b_csv))
        expect(b.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
        expect(metric(b, "Dataset")).to_contain_text("bob_own", timeout=60_000)
        expect(metric(b, "Variables")).to_have_text("4", timeout=60_000)
        assert_shows_only(b, B_COLS, A_COLS)

        # A reruns with a new setting (a fresh run on its session's upload, awaited by the link it writes): still A's
        # data only
        a.locator("[data-testid='stSelectbox']").filter(has_text="Maximum order").first.click()
        a.get_by_role("option", name="1", exact=True).click()
        expect(a).to_have_url(re.compile(r"maxord=1"))
        a.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached",
                                                                                         timeout=120_000)
        expect(a.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
        expect(metric(a, "Dataset")).to_contain_text("alice_private", timeout=60_000)
        expect(metric(a, "Variables")).to_have_text("3", timeout=60_000)
        assert_shows_only(a, A_COLS, B_COLS)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        a.screenshot(path=str(ARTIFACTS / "isolation_a.png"))
        b.screenshot(path=str(ARTIFACTS / "isolation_b.png"))

        # B uploads byte for byte what A uploaded, under another name: B's result and its JSON download name B's
        # file (a cache keyed by the bytes alone would hand B A's name)
        b_copy = tmp_path / "dave_copy.csv"
        b_copy.write_bytes(a_csv.read_bytes())
        b.locator(FILE_INPUT).set_input_files(str(b_copy))
        expect(metric(b, "Dataset")).to_contain_text("dave_copy", timeout=60_000)
        # the new run has drawn its metrics; until it has finished, the page still holds the previous run's download
        # buttons (bob_own's result), so the download waits for the end of the run
        b.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached",
                                                                                         timeout=120_000)
        expect(b.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
        assert "alice_private" not in b.content()
        b.get_by_role("tab", name="Edges & downloads").click()
        with b.expect_download(timeout=30_000) as dl:
            b.get_by_role("button", name="Result (JSON)").click()
        result = json.loads(open(dl.value.path(), encoding="utf-8").read())
        assert result["dataset"] == "dave_copy.csv", result["dataset"]
        assert "alice_private" not in json.dumps(result)
    finally:
        ctx_a.close()
        ctx_b.close()
