"""The real app in a real browser: Debian's chromium driven by Playwright against `streamlit run`."""
import pytest

from conftest import ARTIFACTS

pytestmark = pytest.mark.browser


def wait_idle(page, timeout=60_000):
    page.locator("[data-testid='stApp'][data-test-script-state='notRunning']").wait_for(state="attached",
                                                                                        timeout=timeout)


def test_discover_asia_in_browser(streamlit_server, browser):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1500, "height": 2200})
    page = ctx.new_page()
    external = []
    page.on("request", lambda r: external.append(r.url) if not r.url.startswith(
        (streamlit_server, "data:", "blob:", "about:")) else None)
    page.goto(streamlit_server + "/discover?ds=asia&n=20000&seed=0", wait_until="domcontentloaded")
    wait_idle(page)
    page.get_by_role("button", name="Run discovery").click()
    wait_idle(page)
    expect(page.get_by_text("Discovery complete")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Skeleton F1").first).to_be_visible()
    expect(page.get_by_text("SHD").first).to_be_visible()
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
    assert not external, f"requests left the machine: {external[:5]}"
    ctx.close()
