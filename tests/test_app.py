"""AppTest: every page renders without exceptions; the Discover page runs, shows results, handles bad input."""
import json

import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT

APP = str(ROOT / "app.py")
PAGES = ["pages/discover.py", "pages/datasets.py"]


def app(timeout=60):
    at = AppTest.from_file(APP, default_timeout=timeout)
    return at


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders(page):
    at = app()
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.title


def test_discover_default_runs_on_asia_and_shows_metrics():
    at = app()
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    labels = {m.label: m.value for m in at.metric}
    assert labels["Dataset"] == "asia"
    assert "Skeleton F1" in labels and "SHD" in labels
    assert 0.0 <= float(labels["Skeleton F1"]) <= 1.0
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {t.get("name") for t in spec["data"] if t.get("name")}
    assert any(n.startswith("correct") for n in names)
    frame = at.get("iframe")[0].proto
    html = frame.srcdoc
    assert "vis-network" in html or "vis.Network" in html
    assert "cdn.jsdelivr" not in html and "cdnjs" not in html
    assert at.session_state["discovery"].dataset.name == "asia"


def test_changing_dataset_and_test_reruns():
    at = app()
    at.run()
    at.sidebar.selectbox(key="ds").set_value("cancer")
    at.sidebar.selectbox(key="test").set_value("kendall")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    res = at.session_state["discovery"]
    assert res.dataset.name == "cancer" and res.params["ci_test"] == "kendall"


def test_continuous_data_with_discrete_test_is_binned_and_explained():
    at = app()
    at.run()
    at.sidebar.selectbox(key="ds").set_value("sachs-cont")
    at.sidebar.selectbox(key="test").set_value("g2")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("quantile bins" in i.value for i in at.info)
    assert at.session_state["discovery"].params.get("bins") == 3


def test_query_params_seed_the_widgets():
    at = app()
    at.query_params["ds"] = "earthquake"
    at.query_params["alpha"] = "0.01"
    at.run()
    assert not at.exception
    assert at.sidebar.selectbox(key="ds").value == "earthquake"
    assert at.session_state["discovery"].params["alpha"] == 0.01
