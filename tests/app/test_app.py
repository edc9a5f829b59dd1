"""AppTest: the Discover page runs, shows results, handles bad input; the other pages' flows (every page rendering
at all is the browser test's test_every_page_at_presentation_size)."""
import json

import pytest

from cgdcore.algorithms import REGISTRY
from conftest import Lazy, ROOT, following_reopened_links, reopened_link, shown

AppTest = Lazy("streamlit.testing.v1", "AppTest")
pytestmark = pytest.mark.usefixtures("apptest_start_up_once")  # tests/conftest.py

APP = str(ROOT / "app.py")


def app(timeout=60, follow=True):
    """The app under AppTest; ``follow``: a link the page opens again under other names is run as the browser would
    (tests/conftest.py)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    return following_reopened_links(at) if follow else at


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
    # the tabs: the CI tests per order open first; only the open tab is drawn
    assert [t.label for t in at.tabs][:2] == ["CI tests per order", "Interactive view"]
    assert any(m.label == "Tests per second" for m in at.metric) and not at.get("iframe")
    at.session_state["discover_tab"] = "Interactive view"
    at.run()
    assert not any(m.label == "Tests per second" for m in at.metric)
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


def test_a_run_stopped_before_its_first_test_says_so_once_and_draws_no_empty_chart():
    """CURATE at ε = 0.1 on Sachs stops before its first test: the status says it stopped (not "complete — 0 CI
    tests"), "learned nothing" is said once (the warning, not again as a note), and the ledger has no empty
    per-order chart."""
    at = app(timeout=120)
    at.query_params.update({"algo": "curate", "ds": "sachs", "n": "20000", "eps": "0.1", "nseed": "0"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    res = at.session_state["discovery"]
    assert res.result.n_ci_tests == 0 and res.result.stopped_early
    said = [e.value for e in list(at.warning) + list(at.caption) + list(at.info) if "learned nothing" in e.value]
    assert len(said) == 1, said
    assert "every true edge shows as found" in said[0]  # its graph draws the true edges as found: say why
    assert any("The run made no release" in c.value for c in at.caption)
    statuses = []

    def walk(node):
        for child in getattr(node, "children", {}).values():
            if type(child).__name__ == "Status":
                statuses.append(child.proto.label)
            walk(child)

    walk(at.main)
    assert statuses == ["Stopped before its first CI test — see below"], statuses


@pytest.mark.parametrize("algo", ["laplace-pc", "gauss-pc", "gauss-pc/g2", "svt-pc", "priv-pc", "em-pc", "curate"])
def test_private_algorithms_run_and_show_the_ledger(algo):
    at = app(timeout=120)
    algo, _, private_test = algo.partition("/")
    if private_test:
        at.query_params["private_test"] = private_test
    at.query_params["algo"] = algo
    at.query_params["ds"] = "sachs"
    at.query_params["n"] = "20000"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    res = at.session_state["discovery"]
    assert res.algorithm == algo and res.privacy is not None
    assert res.params["ci_test"] == (private_test or REGISTRY[algo].ci_tests[0])
    labels = {m.label: m.value for m in at.metric}
    assert [t.label for t in at.tabs][:2] == ["Privacy ledger", "Noise vs threshold"]
    # the ledger's tab is open first, and only the open tab is drawn: the noise tab's captions wait for it to open
    assert any("Every release the run made is in the ledger" in c.value for c in at.caption)
    assert not any("Each dot is one CI test" in c.value for c in at.caption)
    assert not any("no noisy test values" in i.value for i in at.info)
    # the per-order bars' sum, said from the numbers: above a guarantee it is not an overspend
    total = sum(r["epsilon"] for r in res.privacy.per_order)
    summed = next(c.value for c in at.caption if c.value.startswith("The bars add up to"))
    above = res.privacy["guarantee"] and total > res.privacy["epsilon"] * (1 + 1e-9)
    assert ("not an overspend" in summed) == above, summed
    if algo == "priv-pc":  # the sieve's row names amplification only where a sub-sample amplifies (n/m > 1)
        names = [str(v) for d in at.dataframe if "parameter" in d.value for v in d.value["parameter"]]
        sieve = next(v for v in names if v.startswith("sieve's ε′"))
        assert ("amplification" in sieve) == (res.privacy.subsample_ratio > 1), (sieve, res.privacy.subsample_ratio)
    at.session_state["discover_tab"] = "Noise vs threshold"  # the user opens the tab
    at.run()
    assert not any("Every release the run made is in the ledger" in c.value for c in at.caption)
    if algo == "em-pc":  # no proof for EM-PC's utility: the page says so instead of quoting an ε
        assert labels["Guaranteed ε"] == "none" and res.privacy["guarantee"] is False
        assert any("No privacy guarantee" in e.value for e in at.error)
        # no noisy test values: the noise tab says so, and no caption describes a chart it does not draw
        assert any("no noisy test values to show" in i.value for i in at.info)
        assert not any("Each dot is one CI test" in c.value or "p-values below" in c.value for c in at.caption)
    else:
        assert any("Each dot is one CI test" in c.value for c in at.caption)
        assert float(labels["Guaranteed ε"].replace(",", "")) == pytest.approx(res.privacy["epsilon"], rel=1e-3)
        assert res.privacy["accounting"]["guarantee"]["valid"]
        assert any(res.privacy["statement"] in s.value for s in list(at.success) + list(at.warning))
    assert float(labels["ε used"].replace(",", "")) == pytest.approx(res.privacy["used"]["epsilon"], rel=1e-3)
    if res.privacy["budget"] is not None and res.privacy["guarantee"]:
        assert res.privacy["epsilon"] <= res.privacy["budget"] * (1 + 1e-9)
    assert (res.privacy["epsilon"] is None) is (not res.privacy["guarantee"])  # no guarantee, no ε stated
    # fresh noise by default: no seed is reported
    assert res.params["noise_seed"] is None and not any("reproducible demo" in w.value for w in at.warning)


def test_every_discover_algorithm_runs_with_its_defaults_fhe_pc_included():
    """fhe-pc used to crash the page after computing (it formatted an ε that an encrypted run without DP lacks)."""
    from cgdcore.discover import ALGORITHMS, SCORE_ALGORITHMS

    at = app(timeout=300)
    at.run()
    offered = at.sidebar.selectbox(key="algo").options
    assert set(offered) == set(ALGORITHMS) - set(SCORE_ALGORITHMS)  # the rest: test_private_algorithms_run...
    at = app(timeout=300)
    at.query_params.update({"algo": "fhe-pc", "ds": "asia", "n": "3000", "maxord": "0"})  # one encrypted level
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    res = at.session_state["discovery"]
    assert res.algorithm == "fhe-pc" and res.params["mode"] == "warm" and res.metrics["skeleton_f1"] > 0
    assert res.params["max_order"] == 0
    from cgdcore.fhe.run import no_dp_note

    assert any(w.value.startswith(no_dp_note("warm")) for w in at.warning)  # the Encrypted page's own words
    assert "Privacy ledger" not in [t.label for t in at.tabs]


def test_a_toggle_in_a_tab_keeps_its_value_while_its_tab_is_closed():
    """Only the open tab is drawn, and Streamlit forgets the value of a widget a run does not draw: the noise tab's
    "Only flipped decisions" came back off after a look at another tab."""
    at = app(timeout=120)
    at.query_params.update({"algo": "priv-pc", "ds": "asia", "n": "5000", "nseed": "1"})
    at.session_state["discover_tab"] = "Noise vs threshold"
    at.run()
    at.toggle(key="only_flipped").set_value(True).run()
    for tab in ("Data", "CI-test log", "Noise vs threshold"):
        at.session_state["discover_tab"] = tab
        at.run()
        assert not at.exception, [e.message for e in at.exception]
    assert at.toggle(key="only_flipped").value is True


@pytest.mark.parametrize("algo,answer_only", [("svt-pc", True), ("laplace-pc", False)])
def test_the_test_log_says_what_each_query_released(algo, answer_only):
    """SVT-PC's noisy values and noisy thresholds were shown beside a caption that exempted only the exact values:
    the sparse vector releases only its above/below answers (Dwork & Roth 2014, Thm 3.23), the Laplace mechanism
    its noisy value."""
    for tab in ("CI-test log", "Noise vs threshold"):
        at = app(timeout=120)
        at.query_params.update({"algo": algo, "ds": "asia", "n": "2000", "eps": "5", "nseed": "1", "discover_tab": tab})
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        said = " ".join(c.value for c in at.caption)
        assert ("sparse vector" in said) == answer_only, said
        if tab == "CI-test log":
            covered = set(next(d.value for d in at.dataframe if "covered by ε" in d.value.columns)["covered by ε"])
            assert ("the decision" in covered) == answer_only and ("the noisy value" in covered) != answer_only, \
                covered


@pytest.mark.parametrize("algo,private", [("svt-pc", True), ("laplace-pc", True), ("pc", False)])
def test_the_private_graph_carries_only_what_the_run_released(algo, private):
    """The graph's hover and the Interactive view of a private run carried, per edge, exact p-values and SVT's noisy
    values and thresholds, unlabelled; they travel with the private graph. A non-private run keeps its p-values."""
    import re

    at = app(timeout=120)
    at.query_params.update({"algo": algo, "ds": "asia", "n": "2000", "eps": "5", "nseed": "1",
                            "discover_tab": "Interactive view"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    hover = " ".join(h for t in spec["data"] if t.get("meta") == "edge hover" for h in t.get("hovertext") or ())
    titles = " ".join(re.findall(r'"title": "((?:[^"\\]|\\.)*)"', at.get("iframe")[0].proto.srcdoc))
    for text in (hover, titles):
        assert "removed:" in text
        assert ("p = " in text) != private and ("threshold" in text) is False, (algo, text[:400])
    if algo == "laplace-pc":
        assert "noisy value" in hover  # the Laplace mechanism releases it
    elif algo == "svt-pc":
        assert "noisy" not in hover  # the sparse vector its answers alone


def drawn_tab(at) -> str:
    """The tab whose content the run drew (ui.widgets.lazy_tabs draws the open tab alone)."""
    (label,) = [t.label for t in at.tabs if t.children]
    return label


def test_the_open_tab_stays_open_when_another_algorithm_brings_other_tabs():
    """Priv-PC adds two tabs to PC's; Streamlit makes new tabs then, and used to open the first again."""
    at = app(timeout=120)
    at.query_params.update({"algo": "pc", "ds": "asia", "n": "2000"})
    at.run()
    at.session_state["discover_tab"] = "CI-test log"
    at.run()
    at.sidebar.selectbox(key="algo").set_value("priv-pc").run()
    assert not at.exception, [e.message for e in at.exception]
    assert [t.label for t in at.tabs][:2] == ["Privacy ledger", "Noise vs threshold"]
    assert drawn_tab(at) == "CI-test log"
    at.session_state["discover_tab"] = "Noise vs threshold"
    at.query_params["discover_tab"] = "Noise vs threshold"  # as a click writes it in the address
    at.run()
    assert drawn_tab(at) == "Noise vs threshold"
    at.sidebar.selectbox(key="algo").set_value("pc").run()  # PC has no such tab: its first opens, and the
    assert drawn_tab(at) == "CI tests per order"  # address losing the tab is not reported as a refused link
    assert not any("link asked for" in w.value for w in at.warning), [w.value for w in at.warning]
    at.sidebar.selectbox(key="algo").set_value("priv-pc").run()
    assert drawn_tab(at) == "CI tests per order"  # the tab open last, not the one left two runs before


@pytest.mark.parametrize("page, link, tab", [
    ("pages/discover.py", {"ds": "asia", "n": "2000", "discover_tab": "Data"}, "Data"),
    ("pages/budget.py", {"bds": "asia", "bn": "2000", "budget_view": "Lemma 1 and objective (2)"},
     "Lemma 1 and objective (2)"),
])
def test_a_link_opens_the_tab_it_names_and_says_when_the_page_has_no_such_tab(page, link, tab):
    at = app(timeout=120)
    at.switch_page(page)
    at.query_params.update(link)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert drawn_tab(at) == tab and not any("link asked for" in w.value for w in at.warning)
    key = next(k for k in link if k.endswith(("_tab", "_view")))
    at = app(timeout=120)
    at.switch_page(page)
    at.query_params.update({**link, key: "No such tab"})
    at.run()
    assert drawn_tab(at) == at.tabs[0].label
    assert any("link asked for" in w.value and "No such tab" in w.value for w in at.warning), \
        [w.value for w in at.warning]


def test_private_run_is_reproducible_by_noise_seed_and_changes_with_it():
    at = app(timeout=120)
    at.query_params.update({"algo": "svt-pc", "ds": "asia", "n": "20000", "nseed": "3"})
    at.run()
    assert at.sidebar.toggle(key="nseed_fixed").value  # a seed in the link fixes it
    first = at.session_state["discovery"]
    assert first.params["noise_seed"] == 3
    assert any("reproducible demo" in w.value for w in at.warning)
    at.sidebar.number_input(key="nseed").set_value(4)
    at.run()
    second = at.session_state["discovery"]
    at.sidebar.number_input(key="nseed").set_value(3)
    at.run()
    third = at.session_state["discovery"]
    assert not at.exception
    assert [t.noise for t in first.result.trace] == [t.noise for t in third.result.trace]
    assert [t.noise for t in first.result.trace] != [t.noise for t in second.result.trace]


@pytest.mark.parametrize("page,key", [("pages/discover.py", "nseed"), ("pages/budget.py", "bseed"),
                                      ("pages/score.py", "snseed")])
def test_a_link_with_the_default_seed_keeps_the_seed_fixed_in_the_address(page, key):
    """The address leaves out a control at its default: a seed of 0 from a link was dropped, and with it the only sign
    that the link fixed the seed, so the address, copied, gave fresh noise. The link's seed now switches the toggle
    on in the address too."""
    at = app(timeout=120)
    at.switch_page(page)
    at.query_params.update({key: "0", **{"nseed": {"algo": "svt-pc", "ds": "asia", "n": "2000"},
                                         "bseed": {"bds": "asia", "bn": "2000"},
                                         "snseed": {"salgo": "DP-NOTEARS (noleaks)", "sds": "sachs", "sn": "1000"}}[key]})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.toggle(key=f"{key}_fixed").value
    assert at.query_params[f"{key}_fixed"] == "true"


def test_fresh_noise_is_kept_until_a_new_draw_is_asked_for(monkeypatch):
    import ui.common

    at = app(timeout=120)
    at.query_params.update({"algo": "svt-pc", "ds": "asia", "n": "20000"})
    at.run()
    first = at.session_state["discovery"]
    assert first.params["noise_seed"] is None
    at.sidebar.toggle(key="auto").set_value(True).run()  # an unrelated rerun shows the same release
    assert [t.noise for t in at.session_state["discovery"].result.trace] == [t.noise for t in first.result.trace]
    at.sidebar.button(key="nseed_redraw").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert [t.noise for t in at.session_state["discovery"].result.trace] != [t.noise for t in first.result.trace]
    # another user with the same settings gets a draw of their own, not the one the server showed the first user
    # (AppTest gives every instance one session id: the second user's is set here)
    monkeypatch.setattr(ui.common, "session_id", lambda: "another user")
    other = app(timeout=120)
    other.query_params.update({"algo": "svt-pc", "ds": "asia", "n": "20000"})
    other.run()
    assert not other.exception, [e.message for e in other.exception]
    assert [t.noise for t in other.session_state["discovery"].result.trace] != [t.noise for t in first.result.trace]


def test_noise_sampler_defaults_to_discrete_and_plain_is_offered():
    at = app(timeout=120)
    at.query_params.update({"algo": "priv-pc", "ds": "asia", "n": "20000"})
    at.run()
    exact = at.session_state["discovery"]
    assert exact.params["sampler"] == "discrete"
    # discrete noisy values sit on a lattice of powers of two; the plain sampler's do not
    noisy = [t.noisy for t in exact.result.trace if t.noise != 0]
    assert noisy and all((v * 2 ** 30).is_integer() for v in noisy)  # r ≥ 2^-30 here
    at.sidebar.radio(key="sampler").set_value("plain").run()
    assert not at.exception, [e.message for e in at.exception]
    plain = at.session_state["discovery"]
    assert plain.params["sampler"] == "plain" and plain.privacy["guarantee"] is False
    assert any("Mironov" in e.value for e in at.error)
    assert not all((t.noisy * 2 ** 30).is_integer() for t in plain.result.trace if t.noise != 0)


def test_capped_run_reports_the_stop():
    at = app(timeout=120)
    at.query_params.update({"algo": "priv-pc", "ds": "sachs", "n": "20000", "budget_mode": "per-round ε (as in paper)", "capped": "true",
                            "eps_cap": "3"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    res = at.session_state["discovery"]
    assert res.privacy["budget"] == 3.0 and res.privacy["epsilon"] <= 3.0
    assert res.result.stopped_early
    assert any("Stopped early" in w.value for w in at.warning)


def test_budget_page_runs_curate_and_priv_pc():
    at = app(timeout=180)
    at.switch_page("pages/budget.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert "Privacy budget" in at.title[0].value
    views = [t.label for t in at.tabs]
    assert views[0] == "CURATE: planned vs used" and len(views) == 5
    # only the open view is drawn: CURATE's, then each other one when opened
    assert len(at.get("plotly_chart")) == 1 and "Sub-sample m" not in {m.label for m in at.metric}
    charts, labels = 1, {m.label for m in at.metric}
    for view in views[1:]:
        at.session_state["budget_view"] = view
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        charts += len(at.get("plotly_chart"))
        labels |= {m.label for m in at.metric}
        if view == "Gauss-PC: ρ per order":
            gauss = next(v for m, v in ((m.label, m.value) for m in at.metric) if m == "Skeleton F1, Gauss-PC")
            assert 0.0 <= float(gauss) <= 1.0
    assert charts >= 5
    assert {"Total budget", "ε used", "Sub-sample m", "Sieve ε′", "Guaranteed ε", "Skeleton F1, Gauss-PC"} <= labels


def _accounting_tables(at):
    """The ledger tables as the reader sees them: their cells are Markdown, each name and note escaped as typed
    (cgdcore.exports.markdown_literal), so the escapes are taken out again here."""
    import re

    def shown(cell):
        return re.sub(r"\\(.)", r"\1", cell).replace("\u2060", "") if isinstance(cell, str) else cell

    return [t.value.map(shown) for t in at.table if "guarantee?" in t.value.columns]


def _check_one_vocabulary(table):
    """One row is the guarantee (or none is), every other row says 'not a guarantee (<reason>)' and why."""
    verdicts = list(table["guarantee?"])
    assert verdicts.count("guarantee") <= 1
    for v, why in zip(verdicts, table["how it is computed, and why"]):
        assert v == "guarantee" or (v.startswith("not a guarantee (") and v.endswith(")")), v
        assert why and len(why) > 10  # a reason, never a bare 'no'


def test_budget_page_promises_curates_budget_only_when_the_run_has_a_guarantee():
    """With the paper's sensitivity (not a worst-case bound) CURATE's run has no guarantee, but the prose said "its
    guarantee is ε = 10, whatever the data did" beside the metric "Guaranteed ε: none"."""
    at = app(timeout=300)
    at.query_params.update({"bn": "20000", "bsens": "paper", "budget_view": "As in paper vs guaranteed"})
    at.switch_page("pages/budget.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.metric[0].label == "Guaranteed ε" and at.metric[0].value == "none"
    prose = next(m.value for m in at.markdown if "What each run can promise" in m.value)
    assert "its guarantee is ε" not in prose and "**no guarantee**" in prose and "not a valid worst-case" in prose
    # each run's statement with what it is worth: CURATE none, Priv-PC's at δ = 10⁻³ above 1/n = 5·10⁻⁵
    assert any(e.value.startswith("**No privacy guarantee.**") for e in at.error)
    assert any("Formally true" in w.value and "is above 1/n" in w.value for w in at.warning)
    at.session_state["budget_view"] = "CURATE: planned vs used"
    at.query_params["budget_view"] = "CURATE: planned vs used"  # as a click writes it in the address
    at.run()
    assert not any("the guarantee is the budget itself" in c.value for c in at.caption)
    assert any("this run has no guarantee" in c.value for c in at.caption)


def test_budget_page_says_from_the_numbers_where_the_papers_totals_lie():
    """The prose said CURATE's formula 'understates' while the chart drew it above the guarantee and the
    budget. Now each paper total is compared with the guarantee from the same numbers the table and chart show."""
    from cgdcore.privacy.ledger import REASON

    at = app(timeout=300)
    at.session_state["budget_view"] = "As in paper vs guaranteed"
    at.switch_page("pages/budget.py").run()
    assert not at.exception, [e.message for e in at.exception]
    prose = next(m.value for m in at.markdown if "What each run can promise" in m.value)
    assert "understates Dwork" not in prose
    tables = _accounting_tables(at)
    assert len(tables) == 2
    for title, table in zip(("CURATE", "Priv-PC"), tables):
        _check_one_vocabulary(table)
        eps = {n: float(e.replace(",", "")) for n, e in zip(table["total"], table["ε"])}
        line = next(ln for ln in prose.splitlines() if ln.startswith(f"- **{title}**"))
        compared = 0
        for name, verdict in zip(table["total"], table["guarantee?"]):
            if verdict == f"not a guarantee ({REASON['as in paper']})":
                side = "above" if eps[name] > eps["guarantee"] else "below"
                assert f"{name} gives ε = " in line and f"{side} the guarantee" in line.split(name)[1].split(";")[0]
                compared += 1
        assert compared >= 1
    # the chart labels each total with the same verdict as the table
    fig = json.loads(next(c for c in at.get("plotly_chart") if "guarantee" in c.proto.spec).proto.spec)
    ticks = fig["layout"]["yaxis"]["ticktext"]
    assert "<b>guarantee</b>" in ticks  # the run's guarantee, named once (it read "guarantee / guarantee")
    assert all(t == "<b>guarantee</b>" or "<i>guarantee</i>" in t or "<i>not a guarantee (" in t for t in ticks)


def test_learn_lesson_8_one_vocabulary_and_the_comparison_from_the_numbers():
    at = app(timeout=300)
    at.query_params["lesson"] = "8 · As in paper vs guaranteed"  # a link to the lesson opens it
    at.switch_page("pages/learn.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert "8 · As in paper vs guaranteed" in [t.label for t in at.tabs]
    table = next(t for t in _accounting_tables(at) if any(str(n).startswith("as in paper") for n in t["total"]))
    _check_one_vocabulary(table)
    eps = {n: float(e.replace(",", "")) for n, e in zip(table["total"], table["ε"])}
    paper = next(n for n in eps if n.startswith("as in paper"))
    side = "above" if eps[paper] > eps["guarantee"] else "below"
    assert any(m.value.startswith("Here: ") and f"{paper} gives ε = " in m.value and f"{side} the guarantee" in m.value
               for m in at.markdown)


def test_pages_use_one_word_for_validity():
    """'guarantee' / 'not a guarantee': no page says 'valid bound', 'not valid', 'unsound' or 'understates' any more."""
    import re

    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "ui").glob("*.py")]:
        text = path.read_text()
        for word in (r"not a valid", r"valid bound", r"not valid", r"unsound", r"understates Dwork"):
            assert not re.search(word, text), (path.name, word)


@pytest.mark.parametrize("algo,extra", [("notears", {}), ("noleaks", {}), ("noleaks", {"srel": "gradient"}),
                                        ("curate-score", {})])
def test_score_page_runs_every_algorithm(algo, extra):
    at = app(timeout=180)
    at.switch_page("pages/score.py")
    at.query_params["salgo"] = algo
    at.query_params.update(extra)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    res = at.session_state["score_result"]
    assert res.algorithm == algo
    if algo == "noleaks":
        assert res.params["release"] == extra.get("srel", "covariance")
    if algo == "curate-score":  # option widgets start at the registry's declared defaults
        from cgdcore.algorithms import PARAMS

        assert at.sidebar.radio(key="ssched").value == PARAMS["schedule"].default == res.privacy["schedule"]
    assert (res.privacy is None) == (algo == "notears")
    # the page's default private runs learn something (at 2,000 rows DP-NOTEARS's released covariance kept nothing)
    assert not any(n.startswith("this run learned nothing") for n in res.notes)
    labels = {m.label for m in at.metric}
    assert "SHD" in labels and ("Guaranteed ε" in labels) == (algo != "notears")
    # the graph and the open tab's weights; each other tab is drawn when opened
    tabs = [t.label for t in at.tabs]
    assert tabs == ["Weights", "Convergence", "Schedules"] + (["Privacy ledger"] if res.privacy else [])
    charts = len(at.get("plotly_chart"))
    assert charts == 2
    for tab in tabs[1:]:
        at.session_state["score_tab"] = tab
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        charts += len(at.get("plotly_chart")) - 1
    assert charts >= 5


def test_score_page_says_a_run_that_learned_nothing_did_so_in_a_warning():
    """As Discover says it: a warning, not an info note among the captions (DP-NOTEARS at ε = 1 on 2,000 rows; with
    the noise seed fixed: a fresh draw learned an edge once in ~10 full runs, and the test had no case to check)."""
    at = _page("score", {"salgo": "DP-NOTEARS (noleaks)", "sn": "2000", "snseed": "0"})
    nothing = [n for n in at.session_state["score_result"].notes if n.startswith("this run learned nothing")]
    assert nothing, "the case this test needs: a run that learned nothing"
    said = [w.value for w in at.warning if "learned nothing" in w.value]
    assert said == [nothing[0][0].upper() + nothing[0][1:] + "."]
    assert not any("learned nothing" in c.value for c in at.caption)


def test_score_page_calls_noleaks_dp_notears_and_old_links_still_work():
    at = app(timeout=180, follow=False)
    at.switch_page("pages/score.py")
    at.query_params["salgo"] = "noleaks"  # a link written with the command-line name
    at.run()
    # the browser opens it again named as the control writes it, so the address keeps it for a reload or a copied
    # link (ui/links.py): it lost the setting, and a reload ran NOTEARS
    assert reopened_link(at) == {"salgo": ["DP-NOTEARS (noleaks)"]}
    at.run()  # the session's next run (no browser here to open the link again) draws the link as it is
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["score_result"].algorithm == "noleaks"
    assert not [w for w in at.warning if "learned nothing" not in w.value]  # nothing refused
    assert at.sidebar.radio(key="salgo").options == ["notears", "DP-NOTEARS (noleaks)", "curate-score"]


@pytest.mark.parametrize("page, link, label", [
    ("discover", {"ds": "sachs", "algo": "gauss-pc", "private_test": "g2", "n": "2000"},
     ("private_test", "G-test (sees any dependence)")),
    ("tradeoff", {"tox": "epsilon_total", "tometric": "shd"}, ("tometric", "SHD (CPDAG)")),
    ("local", {"lscen": "Sachs network (bnlearn, 3 states per protein)", "ln": "2000"},  # a scenario's older name
     ("lscen", "Sachs network, 3 states")),
])
def test_a_link_naming_settings_by_value_keeps_them_in_the_address(page, link, label):
    """Every setting a link may name by value (ui.links.link_labels) is rewritten to the control's label before the
    page draws, with the rest of the link as it was: nothing is said to be refused, and the address keeps it."""
    from ui.links import link_labels

    at = app(timeout=180, follow=False)
    at.switch_page(f"pages/{page}.py")
    at.query_params.update(link)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    labels = link_labels()
    want = {k: [labels[k].get(v, v) if k in labels else v] for k, v in link.items()}
    assert reopened_link(at) == want and want[label[0]] == [label[1]]
    at = app(timeout=180)  # the link as the browser opens it again
    at.switch_page(f"pages/{page}.py")
    at.query_params.update({k: v[0] for k, v in want.items()})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert reopened_link(at) is None
    assert not [w.value for w in at.warning if "The link" in w.value], [w.value for w in at.warning]


def test_score_page_bad_schedule_budget_is_explained():
    at = app(timeout=120)
    at.switch_page("pages/score.py")
    at.query_params.update({"salgo": "curate-score", "seps": "0.5", "sauto0": "false", "seps0": "2"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("exceeds the total" in e.value for e in at.error)


def test_score_page_states_the_guarantee_and_its_weakness_in_the_main_view():
    """The metric row said 'Guaranteed ε 50' with no δ, and that ε = 50 protects little and δ = 0.001 is above 1/n
    = 1/2,000 was said only in the 'Privacy ledger' tab, which is not open by default. Now the main view says it,
    once, as the Discover page does (ui.privacy.guarantee_message)."""
    at = app(timeout=180)
    at.switch_page("pages/score.py")
    at.query_params.update({"salgo": "noleaks", "sn": "2000", "sdelta": "0.001", "seps": "50"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    pv = at.session_state["score_result"].privacy
    assert at.session_state["score_tab"] == "Weights"
    said = [w.value for w in at.warning if w.value.startswith(pv.statement)]
    assert len(said) == 1, [w.value for w in at.warning]
    assert ("Formally true, but at ε = 50 the odds of any inference about one person may grow e^ε-fold, so the bound "
            "protects little; and δ = 0.001 is above 1/n = 0.0005") in said[0], said
    labels = {m.label: m.value for m in at.metric}
    assert labels["Guaranteed ε"] == "50" and labels["δ"] == "0.001", labels
    at.session_state["score_tab"] = "Privacy ledger"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert sum(w.value.startswith(pv.statement) for w in at.warning) == 1  # the tab does not say it again
    # a fixed noise seed is said in the main view too
    at = app(timeout=180)
    at.switch_page("pages/score.py")
    at.query_params.update({"salgo": "noleaks", "sn": "2000", "snseed": "0"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any(w.value.startswith("Noise seed 0:") and "not private against anyone who knows the seed" in w.value
               for w in at.warning), [w.value for w in at.warning]
    assert any(s.value == at.session_state["score_result"].privacy.statement for s in at.success)


def test_local_curve_says_what_it_shows_and_when_its_settings_changed():
    """The curve's caption compares the de-biased and naive lines as drawn (it said the de-biased test "finds almost
    nothing" on 10-bin columns while it drew it above the naive one), and curves of other settings are marked as
    such (a de-biased line stayed after "Include de-biased" was switched off, with no word)."""
    import pandas as pd

    at = app(timeout=300)
    at.switch_page("pages/local.py")
    at.query_params.update({"lscen": "Asia network (8 binary variables)", "ln": "2000"})
    at.session_state["local_tab"] = "Privacy–utility curve"
    at.run()
    at.number_input(key="lreps").set_value(1)
    at.button(key="lcurve_go").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.warning
    df = pd.DataFrame(at.session_state["lcurve_rows"][1])
    mean = df.groupby(["mechanism", "pipeline"])["skeleton_f1"].mean()
    mechs = sorted(set(df.loc[df["pipeline"] == "de-biased", "mechanism"]))
    better = [m for m in mechs if mean[(m, "de-biased")] > mean[(m, "naive")] + 1e-9]
    worse = [m for m in mechs if mean[(m, "de-biased")] < mean[(m, "naive")] - 1e-9]
    caption = next(c.value for c in at.caption if "Geo Comb" in c.value)
    assert "finds almost nothing" not in caption
    if better:
        assert "does better than the naive one for " + ", ".join(better) in caption, caption
    if worse:
        assert f"worse for {', '.join(worse)}" in caption, caption
    assert f"without noise PC scores {mean.xs('no noise', level='pipeline').mean():.2f}" in caption, caption
    # the paper compares mechanisms at equal P; the caption says what ε each channel has there (the geometric
    # channels kept their utility at ε 170–404 where k-RR had 22–67, on Sachs, with no word)
    from cgdcore.privacy.ledger import readable

    eps = df[df["pipeline"] == "naive"].groupby("mechanism")["epsilon_ldp"].agg(["min", "max"])
    assert "Equal P is not equal ε" in caption, caption
    for mech, (lo, hi) in eps.iterrows():
        assert f"{mech} {readable(lo)}" + (f"–{readable(hi)}" if hi > lo else "") in caption, (mech, caption)
    assert ("protects much" in caption) == (eps["min"].min() > 10), caption
    at.toggle(key="lcurve_deb").set_value(False).run()
    assert any("de-biased included changed since" in w.value for w in at.warning), [w.value for w in at.warning]
    at.number_input(key="lreps").set_value(2).run()
    assert any("seeds, de-biased included changed since" in w.value for w in at.warning)
    at.button(key="lcurve_go").click().run()
    assert not at.exception and not at.warning
    assert set(pd.DataFrame(at.session_state["lcurve_rows"][1])["pipeline"]) == {"naive", "no noise"}


def test_local_bins_say_they_are_of_log_intensity_where_they_are():
    """Sachs' real data are cut into equal-width bins of log intensity (the paper's recipe): the control said only
    "equal-width", beside bin edges that grow tenfold."""
    at = app(timeout=300)
    at.switch_page("pages/local.py")
    at.query_params.update({"lscen": "Sachs, real data"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.number_input(key="lbins").label == "Equal-width bins per column (of log intensity)"
    # a chance of guessing of 0.1 is an average over records; the channel's ε (k-RR on 10¹¹ records: ln(0.1 · (10¹¹
    # − 1) / 0.9) ≈ 23) is said beside it, as what it is (the metric alone read as strong privacy). Asia's ε at the
    # same P, 3.3, has no such warning (test_local_curve_says_what_it_shows_and_when_its_settings_changed).
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Chance of guessing a record"] == "0.1" and float(metrics["True ε-LDP per record"]) > 20
    warning = next(w.value for w in at.warning if "is an average" in w.value)
    assert f"worst case is ε = {metrics['True ε-LDP per record']}" in warning and "e^ε-fold" in warning, warning


def test_local_page_naive_vs_debiased():
    at = app(timeout=300)
    at.switch_page("pages/local.py")
    at.query_params.update({"lscen": "Sachs network, 3 states", "lmech": "krr-cwise",
                            "lpmax": "0.5", "lalpha": "0.05", "ln": "20000", "lnseed": "0"})  # the draw it was checked on
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    labels = {m.label for m in at.metric}
    assert {"Chance of guessing a record", "True ε-LDP per record"} <= labels
    # only the open tab is drawn: the channel; PC's three runs wait for the Discovery tab
    assert [t.label for t in at.tabs][:4] == ["Channel", "Rows", "Marginals", "Discovery"]
    assert len(at.get("plotly_chart")) == 1 and not any("pipeline" in df.value.columns for df in at.dataframe)
    charts = 1
    for tab in ("Marginals", "Frequency oracles", "Discovery"):
        at.session_state["local_tab"] = tab
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        charts += len(at.get("plotly_chart"))
        if tab == "Marginals":
            # the marginals caption names the bars' colours as drawn (it said "red" for vermilion bars)
            from cgdcore.viz.palette import BLUE, VERMILION

            dist = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                        if "privatised reports" in c.proto.spec)
            assert [t["marker"]["color"] for t in dist["data"]] == [VERMILION, BLUE]
            assert any("(vermilion bars)" in c.value and "(blue hatched bars)" in c.value for c in at.caption)
    table = at.dataframe[-1].value
    f1 = dict(zip(table["pipeline"], table["skeleton F1"]))
    assert f1["de-biased (g2)"] > f1["naive (fisherz)"] + 0.1  # noise on S keeps spurious edges in naive PC
    assert charts >= 4  # channel, marginals, frequency oracles, graphs
    assert any("python -m cgdcore discover" in c.value for c in at.code)  # the commands of the runs in the tab
    # "edges" counts each adjacency once (an undirected edge is two entries of the CPDAG): with Sachs's 17 true
    # edges, skeleton F1 = 2·correct / (edges + 17) needs a whole number of correct edges, at most the edges shown
    for _, row in table.iterrows():
        correct = row["skeleton F1"] * (row["edges"] + 17) / 2
        assert abs(correct - round(correct)) < 1e-6 and round(correct) <= row["edges"], row.to_dict()


def test_local_page_geo_comb_pmax_explains_no_debiasing():
    at = app(timeout=180)
    at.switch_page("pages/local.py")
    at.query_params.update({"lmech": "geo-comb", "lpmax": "0.05"})
    at.session_state["local_tab"] = "Discovery"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("cannot" in i.value or "no per-column channel" in i.value for i in at.info)


def test_encrypted_page_secure_aggregation_and_dp():
    at = app(timeout=180)
    at.switch_page("pages/encrypted.py")
    at.query_params.update({"fmode": "aggregate", "fn": "5000"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["CI decisions = plaintext"] == "100.0%" and metrics["SHD vs plaintext graph"] == "0"
    assert "Peak memory" not in metrics and metrics["Memory the run added"].endswith(("MB", "GB"))  # this run only
    assert any("no secret key" in md.value for md in at.markdown)
    at2 = app(timeout=180)
    at2.switch_page("pages/encrypted.py")
    at2.query_params.update({"fdp": "once", "feps": "2", "fn": "5000"})
    at2.session_state["encrypted_tab"] = "Privacy"  # only the open tab is drawn
    at2.run()
    assert not at2.exception, [e.message for e in at2.exception]
    # one release of discrete-Laplace noise per owner, ε in total: pure ε-DP, no δ
    assert any("(ε = 2)-differentially private" in s.value for s in at2.success)
    assert {"Report (JSON)", "Agreement per level (CSV)", "Agreement figure (HTML)"} <= set(_downloads(at))
    assert "Every release (CSV)" in _downloads(at2) and "Every release (CSV)" not in _downloads(at)
    cmd = next(c.value for c in at2.code if "cgdcore discover" in c.value)
    assert "--algo fhe-pc" in cmd and "--fhe-dp once" in cmd and "--epsilon 2" in cmd
    from cgdcore.cli import main as cli_main
    import shlex

    assert cli_main(shlex.split(cmd)[3:] + ["--json"]) == 0


def test_encrypted_page_warm_mode_waits_for_the_button():
    at = app(timeout=120)
    at.switch_page("pages/encrypted.py")
    at.query_params.update({"fmode": "warm"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.metric  # nothing ran: encrypted statistics run only on request
    assert any(b.label == "Run encrypted PC" for b in at.button)


def test_encrypted_page_says_a_run_without_dp_has_no_guarantee():
    """Without a DP variant the decrypted tables and the learned graph are exact: the main view says there is no
    guarantee (encryption alone protects the counts in transit, not the output); with a DP variant it does not."""
    at = app(timeout=180)
    at.switch_page("pages/encrypted.py")
    at.query_params.update({"fmode": "aggregate", "fown": "2", "fn": "3000", "fmaxo": "1"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    note = [w.value for w in at.warning if "No privacy guarantee" in w.value]
    assert note and "learned graph itself is not private" in note[0] and "contingency tables" in note[0]
    at2 = app(timeout=180)
    at2.switch_page("pages/encrypted.py")
    at2.query_params.update({"fdp": "per-count", "fown": "2", "fn": "3000", "fmaxo": "1"})
    at2.run()
    assert not at2.exception, [e.message for e in at2.exception]
    assert not any("No privacy guarantee" in w.value for w in at2.warning)


def test_encrypted_page_dp_noise_is_fresh_by_default_and_a_fixed_seed_is_called_a_demo():
    """The DP variants' noise has its own seed control (the app's shared one): fresh entropy by default, so the
    cards' ε-DP statements hold and the command names no noise seed; a fixed noise seed reruns the same noise, and
    the cards then say it is a reproducible demo, not private against anyone who knows the seed."""
    def page(params):
        at = app(timeout=180)
        at.switch_page("pages/encrypted.py")
        at.query_params.update({"fdp": "per-count", "fown": "2", "fn": "3000", "fmaxo": "1", **params})
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        cmd = next(c.value for c in at.code if "cgdcore discover" in c.value)
        return at, cmd, " ".join(c.value for c in at.caption)

    at, cmd, text = page({})
    assert any(t.label == "Fix the noise seed (reproducible demo)" and not t.value for t in at.toggle)
    assert "--noise-seed" not in cmd and "--seed 0" in cmd
    assert "ε per count vector" in text and "reproducible demo" not in text
    assert "these counts come from the data" not in text  # the iid split's counts are a function of n
    _, cmd, text = page({"fnseed": "3", "fseed": "4", "fsplit": "skewed"})
    # the data seed samples the rows and deals them to the owners; the noise seed seeds the noise only
    assert "--noise-seed 3" in cmd and "--seed 4" in cmd and "--split-seed 4" in cmd
    assert "these counts come from the data: not covered by ε" in text  # the skewed split's are drawn from the data
    assert "ε per count vector" in text and "not private against anyone who knows the seed" in text
    from cgdcore.cli import main as cli_main
    import shlex

    assert cli_main(shlex.split(cmd)[3:] + ["--json"]) == 0


def _page(page: str, params, timeout=180):
    """``pages/<page>.py`` opened from a link with ``params``, run once, without an exception."""
    at = app(timeout=timeout)
    at.switch_page(f"pages/{page}.py")
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _tradeoff(params, timeout=180):
    return _page("tradeoff", params, timeout)


def test_tradeoff_page_runs_a_sweep_on_request_and_caches_it():
    params = {"tods": "asia", "ton": "20000", "toalg": ["priv-pc", "svt-pc", "pc[ci_test=kendall]"],
              "toeps": "logspace:-1:1:3", "toreps": "2", "tojobs": "1"}
    at = _tradeoff(params)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Runs in this sweep"] == "13" and metrics["Already computed"] == "0"
    assert not at.tabs  # nothing ran yet
    at.button(key="togo").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert [t.label for t in at.tabs] == ["Utility vs ε", "CI tests", "Run time", "Table and downloads"]
    assert any("Dotted lines: non-private references (pc[ci_test=kendall])" in c.value for c in at.caption)
    # the δ the curves are at: the family's default 1e-6, below 1/n = 5·10⁻⁵ here (nothing to flag)
    assert any("Every private run is at δ = 1e-06. Hover" in c.value for c in at.caption), \
        [c.value for c in at.caption]
    # linking every pair, drawn and counted: a private point at most 0.02 above it learned nothing
    from cgdcore.data.registry import load_network
    from cgdcore.metrics import every_pair_f1

    trivial = every_pair_f1(load_network("asia").adjacency())
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert any(sh.get("line", {}).get("dash") == "dash" and sh["y0"] == pytest.approx(trivial)
               for sh in spec["layout"]["shapes"])
    ys = [y for t in spec["data"] if t.get("mode") == "lines+markers" for y in _values(t["y"])]
    nothing = sum(round(y, 2) <= round(trivial, 2) + 0.02 for y in ys)
    verb = "lies" if nothing == 1 else "lie"
    assert any(f"Of {len(ys)} private points, {nothing} {verb} below it or at most 0.02 above it" in c.value
               for c in at.caption), [c.value for c in at.caption]
    assert not at.code  # only the open tab is drawn: the commands are in the table's tab
    at.session_state["tradeoff_tab"] = "Table and downloads"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("python -m cgdcore discover" in c.value for c in at.code)
    assert not any("Dotted lines" in c.value for c in at.caption)
    # same parameters in a new session: served from the cache, no button press needed
    at2 = _tradeoff(params)
    assert {m.label: m.value for m in at2.metric}["Already computed"] == "13"
    assert at2.tabs and at2.button(key="togo").disabled
    # the x-axis switches between requested ε and the reported totals without rerunning
    at2.selectbox(key="tox").set_value("eps_basic").run()
    assert not at2.exception, [e.message for e in at2.exception]


def test_tradeoff_run_button_is_an_action_below_the_metrics_not_one_of_them():
    """"Run sweep" sat in the row of metrics, where it read as a third one: it is on a line of its own, under them,
    in the page's main area (in view when the page opens)."""
    at = _tradeoff({})
    assert any(m.label == "Runs in this sweep" for c in at.columns for m in c.metric)  # the metrics keep their row
    assert not [b.label for c in at.columns for b in c.button]
    assert [b.key for b in at.main.button] == ["togo"] and at.button(key="togo").label == "Run sweep"


def test_tradeoff_leaves_a_run_without_a_guarantee_off_the_guaranteed_axis_and_says_so():
    """EM-PC has no guarantee: it was drawn against 'guaranteed ε' at a bound its table marks guarantee = 0."""
    params = {"tods": "asia", "ton": "5000", "toalg": ["priv-pc", "em-pc"], "toeps": "logspace:-1:1:2",
              "toreps": "1", "tojobs": "1"}
    at = _tradeoff(params)
    at.button(key="togo").click().run()
    assert any("This sweep has no non-private reference: add pc[ci_test=kendall]" in c.value for c in at.caption)
    at.selectbox(key="tox").set_value("epsilon_total").run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("em-pc has no privacy guarantee" in i.value for i in at.info)
    assert any("Hover a point for its requested ε, its guaranteed ε, its mean ± sd" in c.value for c in at.caption)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t.get("name") for t in spec["data"] if t.get("mode") == "lines+markers"} == {"priv-pc"}
    at.selectbox(key="tox").set_value("epsilon").run()
    assert not any("no privacy guarantee" in i.value for i in at.info)
    assert any("Hover a point for its requested ε, its mean ± sd" in c.value for c in at.caption)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert {t.get("name") for t in spec["data"] if t.get("mode") == "lines+markers"} == {"priv-pc", "em-pc"}


def test_tradeoff_page_preset_fills_the_widgets():
    at = _tradeoff({})
    at.selectbox(key="topre").set_value("privpc-table3").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.multiselect(key="toalg").value == ["priv-pc", "em-pc"]
    assert at.text_input(key="toeps").value == "1"
    assert any("Table 3" in i.value for i in at.info)
    assert {m.label: m.value for m in at.metric}["Runs in this sweep"] == str(7 * 2 * 5)


def _values(v):
    """A plotly JSON array: a list, or {"dtype", "bdata"} (base64) as plotly 6 writes numeric arrays."""
    import base64

    import numpy as np

    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).tolist()
    return list(v)


def _utility_chart(at):
    """(x-axis title, y-axis title, x of the points, chart title) of the Trade-off page's utility chart."""
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    xs = [x for t in spec["data"] if t.get("mode") == "lines+markers" for x in _values(t["x"])]
    lay = spec["layout"]
    return lay["xaxis"]["title"]["text"], lay["yaxis"]["title"]["text"], xs, lay["title"]["text"]


def test_tradeoff_chart_follows_its_controls_after_a_preset_and_they_are_in_the_link():
    """A finished sweep, then preset privpc-fig1 trimmed back to it (served from the cache): the controls
    said 'advanced composition', [1, 100] and 'arc F1' while the chart drew skeleton F1 against the guaranteed total,
    unclipped (the controls took the preset's values but handed back their old ones)."""
    from cgdcore.experiments import X_AXES, X_AXIS_NAMES
    from cgdcore.viz.sweep import METRICS

    small = {"tods": ["cancer"], "ton": 2000, "toalg": ["priv-pc", "svt-pc"], "toeps": "logspace:-2:1.5:21",
             "toreps": 1, "todelta": "1e-3"}  # the preset's δ, the paper's
    at = _tradeoff({**{k: (v if isinstance(v, list) else str(v)) for k, v in small.items()}, "tojobs": "1"})
    at.button(key="togo").click().run()
    assert not at.exception, [e.message for e in at.exception]
    x_title, y_title, _, title = _utility_chart(at)
    assert (x_title, y_title) == (X_AXIS_NAMES["epsilon_total"], METRICS["skeleton_f1"])
    assert X_AXES["epsilon_total"] in title
    # the select box and the axis under each panel name each axis short enough to be read whole; the select box's
    # help and the chart's title give the full label
    axis = at.selectbox(key="tox")
    assert axis.options == list(X_AXIS_NAMES.values()) and max(map(len, axis.options)) <= 36
    assert all(label in axis.help for label in X_AXES.values())
    at.selectbox(key="topre").set_value("privpc-fig1").run()
    assert not any("ignored" in w.value for w in at.warning)  # the preset changed the linked settings on purpose
    for k in ("tods", "toalg"):
        at.multiselect(key=k).set_value(small[k])
    for k in ("ton", "toreps"):
        at.number_input(key=k).set_value(small[k])
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert {m.label: m.value for m in at.metric}["Already computed"] == "42"  # the same sweep, from the cache
    x_title, y_title, xs, title = _utility_chart(at)
    assert (x_title, y_title) == (X_AXIS_NAMES["eps_advanced"], METRICS["arc_f1"]) and X_AXES["eps_advanced"] in title
    assert xs and all(1.0 <= x <= 100.0 for x in xs)
    assert at.selectbox(key="tox").value == "eps_advanced" and at.toggle(key="toclip").value
    assert at.selectbox(key="tometric").value == "arc_f1"
    # the banner cites the paper, not an internal file; no caption names reference lines that are not drawn
    banner = next(i.value for i in at.info if "Figure 1" in i.value)
    assert ".md" not in banner and "Wang, Pang & Song" in banner
    assert not any("Dotted lines" in c.value for c in at.caption)  # no non-private algorithm in this sweep
    # the chart's settings travel in the link: a new session opened from it draws the same chart
    link = {k: at.query_params[k] for k in ("tox", "toclip", "tometric")}
    at2 = _tradeoff({**{k: (v if isinstance(v, list) else str(v)) for k, v in small.items()}, **link})
    assert _utility_chart(at2)[:2] == (x_title, y_title)
    assert sorted(_utility_chart(at2)[2]) == sorted(xs)


@pytest.mark.parametrize("eps,msg", [("0,1", "positive"), ("logspace:1", "logspace:START"), ("a", "numbers")])
def test_tradeoff_page_bad_epsilon_grid_is_explained(eps, msg):
    at = _tradeoff({"toeps": eps})
    assert any(msg in shown(e.value) for e in at.error), [e.value for e in at.error]


def test_tradeoff_chart_settings_in_a_link_are_taken_by_name_or_label_and_a_bad_one_is_named():
    """The chart's controls are in the link too: by option name or by the label the page writes, and a value they
    refuse is said (it was dropped without a word)."""
    from cgdcore.experiments import X_AXIS_NAMES

    for tox, tometric in (("eps_basic", "arc_f1"), (X_AXIS_NAMES["eps_basic"], "arc F1 (CPDAG, the papers' metric)")):
        at = _tradeoff({"tox": tox, "tometric": tometric})
        assert at.selectbox(key="tox").value == "eps_basic" and at.selectbox(key="tometric").value == "arc_f1"
        assert not any("ignored" in w.value for w in at.warning), [w.value for w in at.warning]
    at = _tradeoff({"tox": "budget", "tometric": "shd"})
    warned = " ".join(w.value for w in at.warning if "ignored" in w.value)
    assert "`tox=budget`" in warned and "tometric" not in warned, warned
    assert f"`tox=budget` (using {X_AXIS_NAMES[at.selectbox(key='tox').value]})" in warned  # drawn instead
    assert at.selectbox(key="tometric").value == "shd"


def test_learn_noise_lesson_caption_follows_its_sliders():
    """Lesson 4's caption states the flip zone and probabilities of the sliders' n and ε (it once described n =
    100,000 and ε = 1 whatever the sliders said: "few decisions" flip, where at 1,000 rows a third of the clear
    dependences do)."""
    import math

    from cgdcore.citests import KENDALL_PUBLIC_C, p_sensitivity

    at = app()
    at.switch_page("pages/learn.py")
    at.session_state["lesson"] = "4 · Noise near the threshold"
    at.run()
    for n, eps in ((100_000, 1.0), (1000, 1.0), (1_000_000, 0.05)):
        at.select_slider(key="lfn").set_value(n)
        at.slider(key="lfe").set_value(eps).run()
        assert not at.exception, [e.message for e in at.exception]
        sens = p_sensitivity(KENDALL_PUBLIC_C / math.sqrt(n), "one")
        zone = sens / eps * math.log(5)
        caption = next(c.value for c in at.caption if "Only tests whose p-value" in c.value)
        assert f"n = {n:,} rows, ε = {eps:g} *per test*" in caption, caption
        assert f"within {zone:.2g} of α = 0.05" in caption, caption
        assert f"that is {min(0.05 + zone, 1) - max(0.05 - zone, 0):.0%} of the tests" in caption, caption
        assert f"flips with probability {0.5 * math.exp(-0.05 * eps / sens):.2g}." in caption, caption
        assert f"flips with probability {0.5 * math.exp(-0.05 / 300 / sens):.2f}." in caption, caption
    # at the sliders' far end every p-value lies in the band: the caption said "Only tests … can flip … that is
    # 100% of the tests … But … even a clear dependence flips"
    at.select_slider(key="lfn").set_value(1000)
    at.slider(key="lfe").set_value(0.05).run()
    caption = next(c.value for c in at.caption if "ε = 0.05 *per test*" in c.value)
    assert "Only tests" not in caption and "100% of the tests" not in caption and " But " not in caption, caption
    assert "every decision is close to a coin flip" in caption, caption


def test_learn_page_examples_run_and_respond():
    at = app(timeout=180)
    at.switch_page("pages/learn.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    tabs = [t.label for t in at.tabs]
    assert tabs[0] == "1 · PC step by step" and len(tabs) == 11
    # only the open lesson runs its example: lesson 1 at first
    assert at.get("select_slider") and not at.get("slider") and not at.get("multiselect")

    def open_lesson(number):
        at.session_state["lesson"] = tabs[number - 1]
        at.run()
        assert not at.exception, [e.message for e in at.exception]

    # lesson 1's default recovers the truth and says so; its second example explains the edge PC missed
    assert any("recovered the true graph exactly" in m.value for m in at.success)
    assert any("missed Pollution – Cancer" in w.value and "≥ α" in w.value for w in at.warning)
    # … and counts the arrows the missing edge turned (Cancer at 5,000 rows: two point into Cancer the wrong way)
    assert any("here 2 edges PC kept are oriented otherwise than in the true CPDAG" in w.value for w in at.warning)
    at.select_slider(key="lstage").set_value(1).run()     # after order 0
    assert not at.exception, [e.message for e in at.exception]
    assert any("Order 0" in m.value for m in at.markdown)
    at.selectbox(key="lnet").set_value("asia").run()
    open_lesson(2)  # the CI test on lesson 1's network
    at.multiselect(key="lS").set_value(["lung"]).run()
    assert not at.exception, [e.message for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["p-value"]) >= 0 and metrics["decision at α = 0.05"] in ("independent", "dependent")
    open_lesson(3)
    before = {m.label: m.value for m in at.metric}["de-biased estimate"]
    at.slider(key="leps").set_value(0.2).run()
    assert {m.label: m.value for m in at.metric}["de-biased estimate"] != before
    at.slider(key="leps").set_value(0.05).run()  # 100 people at ε = 0.05: the estimate leaves [0, 1], and it is said
    at.select_slider(key="lppl").set_value(100).run()
    estimate = float({m.label: m.value for m in at.metric}["de-biased estimate"].split(" ± ")[0])
    assert not 0 <= estimate <= 1 and any("is outside [0, 1]" in i.value for i in at.info)
    open_lesson(8)
    assert any(str(m.label) == "the run can promise" for m in at.metric)
    # the promise, ε = 14,704 at δ = 10⁻³ on n = 100,000, from a fixed seed, is said for what it is worth
    promise = next(w.value for w in at.warning if "Formally true" in w.value)
    assert "protects little" in promise and "is above 1/n" in promise, promise
    assert any(w.value.startswith("Noise seed 0") for w in at.warning)
    # the paper's number is its formula on this run, which decides on the z scale, not the paper's own run
    assert any(str(m.label) == "the paper's formula gives" for m in at.metric)
    assert any("deciding on this app's z scale" in c.value for c in at.caption)
    open_lesson(6)
    # lesson 6 says the z-scale run sieves on every row (n/m = 1), as its metric shows
    assert {m.label: m.value for m in at.metric}["sieve sub-sample (of 100,000 rows)"] == "100,000 rows"
    assert any("n/m = 1, so ε' = ε/2 = 0.5" in c.value for c in at.caption)
    # sieve and examine: the flow counts add up (asked = sieve kept + examined + not asked)
    rounds = {m.label: m.value for m in at.metric}["rounds (examined tests), ε each"]
    assert rounds.endswith("× 1")
    # those rounds are what the run spent; what it can promise counts every test as a possible round (the lesson
    # said the sieve lets tests through "for free" beside "48 × 1", with no guarantee in sight)
    promise = {m.label: m.value for m in at.metric}["the run can promise"]
    assert promise.startswith("ε = ") and float(promise[4:].replace(",", "")) > 100 * int(rounds.split(" × ")[0])
    caption = next(c.value for c in at.caption if "sparse vector technique" in c.value)
    assert "for free" not in caption and f"possible round ({promise}; lesson 8)" in caption, caption
    assert any("Formally true" in w.value for w in at.warning)
    # budget per order: CURATE and Laplace-PC at the same total ε, per-order table; lesson 5 says what CURATE did
    # with order 0 against Laplace-PC, whichever way it went, and why Σ ε per test can pass the total
    open_lesson(5)
    assert any("Here CURATE gave each order-0 test" in m.value for m in at.markdown)
    assert any("advanced composition" in m.value for m in at.markdown)
    metrics = {m.label: m.value for m in at.metric}
    assert {"PC", "CURATE", "Laplace-PC"} <= set(metrics)
    at.select_slider(key="lat").set_value(1.0).run()
    assert not at.exception, [e.message for e in at.exception]
    at.selectbox(key="lan").set_value("sachs").run()  # Sachs at ε = 0.5: both algorithms stop, and both stops are said
    at.select_slider(key="lat").set_value(0.5).run()
    told = next(m.value for m in at.markdown if "Here CURATE gave each order-0 test" in m.value)
    assert "**CURATE** stopped:" in told and "**Laplace-PC** stopped:" in told
    open_lesson(9)
    # the floating-point lesson: plain outputs of f = 1 all sit on the 2^-53 grid, f = 0's almost never
    grid_table = next(df.value for df in at.dataframe if "f = 1: outputs on the 2⁻⁵³ grid" in df.value.columns)
    assert grid_table.iloc[0]["f = 1: outputs on the 2⁻⁵³ grid"] == "100.0%"
    assert float(grid_table.iloc[0]["f = 0: outputs on the 2⁻⁵³ grid"].rstrip("%")) < 5
    snapping = next(df.value for df in at.dataframe if "|ln ratio|" in df.value.columns)
    assert list(snapping["output"]) == [-2.0, -1.0, 0.0, 1.0, 2.0]
    # which statistic: the text's numbers are the run's (Kendall ahead at small ε, G past Kendall's ceiling)
    open_lesson(11)
    said = next(m.value for m in at.markdown if m.value.startswith("So the better statistic depends on the budget"))
    assert "at ε = 0.3 Kendall scores 0.8" in said and "G is ahead, and it passes Kendall's ceiling" in said
    # who sees what: central DP's graph is private at a budget fixed in advance (not as the papers run Priv-PC,
    # lesson 8), and the encrypted key holder is an owner who, in secure aggregation, decrypts summed tables
    open_lesson(7)
    cards = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "the released graph is ε-DP" not in cards and "budget fixed in advance" in cards, cards
    assert "decrypts only the results" not in cards and "minus its own are the other owners' total" in cards, cards


def test_a_link_that_sets_a_lessons_example_opens_that_lesson():
    """Learn runs only the open lesson, so a link that sets a lesson's example (a widget bound to the address) must
    open that lesson, or the setting would reach no control. Each lesson is opened in turn to see which bound
    widgets it draws, then a link that sets one of them (to a value the widget refuses, which the page says) must
    open the same lesson."""
    at = app(timeout=180)
    at.switch_page("pages/learn.py").run()
    lessons = [t.label for t in at.tabs]
    owner = {}
    for lesson in lessons:
        at.session_state["lesson"] = lesson
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        for kind in ("selectbox", "select_slider", "slider", "number_input", "multiselect"):
            for w in at.get(kind):
                if w.proto.query_param_key:
                    assert owner.setdefault(w.proto.query_param_key, lesson) == lesson
    assert {"lnet", "leps", "lse", "lae", "lfpl"} <= set(owner), owner
    for key, lesson in owner.items():
        link = app(timeout=180)
        link.query_params[key] = "no-such-value"
        link.switch_page("pages/learn.py").run()
        assert not link.exception, [e.message for e in link.exception]
        assert link.session_state["lesson"] == lesson, (key, lesson)
        assert any(f"`{key}=no-such-value`" in w.value for w in link.warning), key


def test_learn_page_names_a_refused_link_setting():
    at = app(timeout=180)
    at.query_params["leps"] = "99"  # the ε slider stops at 5
    at.switch_page("pages/learn.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("`leps=99`" in w.value for w in at.warning)


def test_datasets_page_names_an_unknown_dataset_in_the_link():
    at = app()
    at.query_params["dsview"] = "no-such-network"
    at.switch_page("pages/datasets.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("`dsview=no-such-network`" in w.value for w in at.warning)


def test_private_algorithms_start_from_their_papers_threshold():
    at = app(timeout=120)
    at.query_params.update({"algo": "priv-pc", "ds": "asia", "n": "20000"})
    at.run()
    assert at.session_state["discovery"].params["alpha"] == 0.10  # Priv-PC's T
    at = app(timeout=120)
    at.query_params.update({"algo": "curate", "ds": "asia", "n": "20000"})
    at.run()
    assert at.session_state["discovery"].params["alpha"] == 0.05  # CURATE's T


def test_oversized_run_is_refused_at_once_with_the_command():
    """PC on Andes at 2,000,000 rows is refused before sampling, with the CLI command that has no ceiling."""
    at = app(timeout=30)
    at.query_params.update({"ds": "andes", "n": "2000000"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("too large for the shared app" in e.value for e in at.error)
    assert any("python -m cgdcore discover --dataset andes --n 2000000" in c.value for c in at.code)
    assert "discovery" not in at.session_state


def test_pinned_run_is_compared_side_by_side_with_the_edges_that_differ():
    at = app(timeout=60)
    at.query_params.update({"ds": "asia", "n": "5000"})
    at.run().run()  # the first run settles the URL (defaults leave it)
    at.button(key="pin_run").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert "pin" in at.query_params and "n=5000" in at.query_params["pin"]
    at.sidebar.select_slider(key="alpha").set_value(0.001)  # new settings: a second run
    at.sidebar.selectbox(key="maxord").set_value("0").run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Pinned run and this run" in h.value for h in at.subheader)
    assert len(at.get("plotly_chart")) >= 3  # the main graph and both compared graphs
    table = at.dataframe[0].value
    assert list(table.columns) == ["pinned", "this run"] and "SHD" in table.index
    assert "α = 0.05" in table.loc["settings", "pinned"] and "α = 0.001" in table.loc["settings", "this run"]
    assert "max order 0" in table.loc["settings", "this run"] and "max order" not in table.loc["settings", "pinned"]
    from cgdcore.metrics import edge_differences

    a, b = at.session_state["pinned"]["res"], at.session_state["discovery"]
    diff = edge_differences(a.cpdag, b.cpdag, list(b.variables))
    assert diff  # order 0 only: every marginally dependent pair stays linked
    assert len(at.dataframe[1].value) == len(diff)
    at.button(key="unpin_run").click().run()
    assert "pin" not in at.query_params and not any("Pinned run" in h.value for h in at.subheader)


def _downloads(at) -> dict:
    return {b.proto.label: b for b in at.get("download_button")}


@pytest.mark.parametrize("page,params,labels", [
    ("pages/score.py", {"salgo": "noleaks"}, {"Weights W (CSV)", "Optimiser trace (CSV)", "Every release (CSV)",
                                              "Result (JSON)", "Graph figure (HTML)"}),
    ("pages/budget.py", {}, {"Gauss-PC's plan (CSV)", "CURATE's plans (CSV)", "CURATE's releases (CSV)", "Priv-PC's releases (CSV)",
                             "Plan figure (HTML)"}),
    ("pages/local.py", {}, {"Privatised records (CSV)"}),
    ("pages/discover.py", {}, {"Edge list (CSV)", "Result (JSON)", "Graph (DOT)", "Graph figure (HTML)"}),
])
def test_every_result_page_offers_its_downloads(page, params, labels, monkeypatch):
    """... and writes none of them while it draws: each file is written when its button is clicked (the browser tests
    click them and read the files). Discover's graph downloads are in its "Edges & downloads" tab and Local's records in
    its "Rows" tab, opened first."""
    import cgdcore.exports
    import cgdcore.viz
    import ui.downloads

    written = []

    def record(name):
        def write(*args, **kwargs):
            written.append(name)
            return ""
        return write

    for module, names in ((cgdcore.exports, ("csv_text", "figure_html")), (cgdcore.viz, ("to_dot", "edge_list_csv")),
                          (ui.downloads, ("csv_text", "figure_html", "json_text", "ledger_csv", "trace_csv",
                                          "parquet_bytes"))):
        for name in names:
            monkeypatch.setattr(module, name, record(name), raising=False)
    at = app(timeout=180)
    at.switch_page(page)
    at.query_params.update(params)
    if page == "pages/discover.py":
        at.session_state["discover_tab"] = "Edges & downloads"
    if page == "pages/local.py":
        at.session_state["local_tab"] = "Rows"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert labels <= set(_downloads(at)), set(_downloads(at))
    assert not written, f"files written while the page drew: {written}"
    if page in ("pages/score.py", "pages/discover.py", "pages/budget.py"):  # Local's: in its Discovery tab
        assert any("python -m cgdcore discover" in c.value for c in at.code)


def test_download_payloads_parse():
    """What the download rows write: CSV that pandas reads back, JSON that parses, HTML with the figure inlined."""
    import io

    import pandas as pd

    from cgdcore.data import load_dataset
    from cgdcore.discover import discover
    from cgdcore.exports import csv_text, figure_html
    from cgdcore.viz import graph_figure
    from ui.downloads import json_text, ledger_table

    res = discover(load_dataset("asia", n=3000, seed=0), algo="gauss-pc", epsilon=2.0, seed=0)
    led = pd.read_csv(io.StringIO(csv_text(ledger_table(res.ledger))))
    assert len(led) == len(res.ledger.releases) and {"mechanism", "ε", "released"} <= set(led.columns)
    back = json.loads(json_text(res.to_json()))
    assert back["algorithm"] == "gauss-pc" and back["privacy"]["epsilon"] <= 2.0
    html = figure_html(graph_figure(res.cpdag, res.dataset.truth, list(res.variables)), "a <b> title")
    assert "<title>a &lt;b&gt; title</title>" in html and "plotly" in html and '<script src="http' not in html


def test_tradeoff_sweep_above_the_work_ceiling_is_refused_with_the_command():
    """The Trade-off page sums the estimated work of the runs a sweep has left (cgdcore.experiments.cost) and refuses
    one above the ceiling with the sweep's command line; its default sweep passes."""
    at = _tradeoff({"tods": ["alarm", "child"], "ton": "1000000", "toalg": ["priv-pc", "em-pc"]})
    assert any("sweep is too large for the shared app" in e.value for e in at.error), [e.value for e in at.error]
    assert any(c.value.startswith("python -m cgdcore sweep --dataset alarm,child --n 1000000 --algos 'priv-pc,em-pc'")
               for c in at.code)
    assert at.button(key="togo").disabled
    at = _tradeoff({})
    assert not at.error and not at.button(key="togo").disabled
    assert {m.label: m.value for m in at.metric}["Runs in this sweep"] == "315"


def test_comparison_row_names_each_kind_of_guarantee():
    """The pinned-run table's guarantee row: a ledger's statement, a local run's ε-LDP, none for plain PC."""
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover
    from ui.compare import _guarantee

    ds = load_dataset("asia", n=2000, seed=0)
    assert _guarantee(discover(ds, algo="pc").privacy) == "not private"
    local = _guarantee(discover(ds, algo="pc", seed=0, ldp={"mechanism": "krr-cwise", "epsilon": 2}).privacy)
    assert local == "ε = 2 local DP per record (krr-cwise)"
    central = discover(ds, algo="gauss-pc", epsilon=1.0, seed=0).privacy
    assert _guarantee(central) == central.statement and "differentially private" in central.statement


def test_a_private_run_no_better_than_linking_every_pair_says_so():
    """SVT-PC at ε = 0.1 on Sachs keeps one wrong edge (skeleton F1 0.11): not "learned nothing" (an edge was
    removed), but worse than the every-pair baseline (F1 0.47), and the page says so; at ε = 10 it does not."""
    at = app(timeout=120)
    at.query_params.update({"algo": "svt-pc", "ds": "sachs", "n": "20000", "eps": "0.1", "nseed": "0"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    said = [w.value for w in at.warning if "linking every pair of variables" in w.value]
    assert len(said) == 1 and "worse than" in said[0] and "0.47" in said[0], said
    at = app(timeout=120)
    at.query_params.update({"algo": "svt-pc", "ds": "sachs", "n": "20000", "eps": "10", "nseed": "0"})
    at.run()
    assert at.session_state["discovery"].metrics["skeleton_f1"] > 0.6
    assert not [w.value for w in at.warning if "linking every pair of variables" in w.value]


def test_widgets_kept_across_tabs_draw_without_a_state_warning():
    """A widget inside a tab keeps its value while its tab is closed (ui.widgets.lazy_tabs sets it in the session
    state each run); drawn with a starting value of its own as well, Streamlit logged "The widget with key "lrun"
    was created with a default value but also had its value set via the Session State API" on the server once the
    Local page's Discovery tab was drawn twice. The starting values are the same: discovery runs, three seeds."""
    import logging

    from streamlit.elements.lib import policies

    records = []
    handler = logging.Handler()
    handler.emit = records.append
    log = logging.getLogger(policies.__name__)
    log.addHandler(handler)
    shown_before, policies._shown_default_value_warning = policies._shown_default_value_warning, False
    try:
        at = app(timeout=300)
        at.switch_page("pages/local.py")
        at.query_params.update({"lscen": "Asia network (8 binary variables)", "ln": "2000"})
        at.run()
        for tab in ("Discovery", "Privacy–utility curve", "Channel", "Discovery", "Privacy–utility curve"):
            at.session_state["local_tab"] = tab
            at.run()
            assert not at.exception, [e.message for e in at.exception]
        assert at.number_input(key="lreps").value == 3 and at.toggle(key="lcurve_deb").value is True
        at.session_state["local_tab"] = "Discovery"
        at.run()
        assert at.toggle(key="lrun").value is True and any("pipeline" in df.value.columns for df in at.dataframe)
    finally:
        log.removeHandler(handler)
        policies._shown_default_value_warning = shown_before
    assert not [r.getMessage() for r in records if "default value" in r.getMessage()]


def test_tradeoff_caption_counts_only_the_points_the_chart_draws():
    """On the guaranteed-ε axis EM-PC (no guarantee) is not drawn: the every-pair caption counted its points among
    "N of M private points" all the same (6 where 4 were drawn). With one ε the bars draw every algorithm, EM-PC
    included, so the page does not say it is left out."""
    params = {"tods": "asia", "ton": "2000", "toalg": ["svt-pc", "laplace-pc", "em-pc", "pc[ci_test=kendall]"],
              "toeps": "1,5", "toreps": "1", "tojobs": "1", "tox": "epsilon_total"}
    at = _tradeoff(params)
    at.button(key="togo").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("em-pc has no privacy guarantee" in i.value for i in at.info)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    drawn = [t for t in spec["data"] if t.get("mode") == "lines+markers"]
    assert "em-pc" not in {t["name"] for t in drawn} and len(drawn) == 2
    points = sum(len(_values(t["y"])) for t in drawn)
    assert points == 4
    said = [c.value for c in at.caption if "below it or at most 0.02 above it" in c.value]
    assert len(said) == 1 and f"Of {points} private points" in said[0], said
    assert "Every private run is at δ = 1e-06" in said[0], said  # EM-PC, without a guarantee, has no δ
    at2 = _tradeoff({**params, "toeps": "1"})  # one ε: bars, EM-PC's among them
    at2.button(key="togo").click().run()
    assert not at2.exception, [e.message for e in at2.exception]
    bars = json.loads(at2.get("plotly_chart")[0].proto.spec)["data"]
    assert any((t.get("name") or "").startswith("em-pc") for t in bars if t.get("type") == "bar")
    assert not any("not drawn here" in i.value for i in at2.info)
    said = [c.value for c in at2.caption if "below it or at most 0.02 above it" in c.value]
    assert len(said) == 1 and "Of 3 private bars" in said[0], said


def test_tradeoff_says_when_its_curves_are_at_different_delta_and_a_preset_sets_the_papers():
    """Compared at the same ε, curves at different δ are not equally private: the caption says so (CURATE's default
    is 1e-10, SVT-PC's 1e-6); the δ control sets one for every private run, and flags one above 1/n."""
    params = {"tods": "asia", "ton": "2000", "toalg": ["svt-pc", "curate"], "toeps": "2", "toreps": "1",
              "tojobs": "1", "tobud": "total"}
    at = _tradeoff(params)
    at.button(key="togo").click().run()
    said = " ".join(c.value for c in at.caption)
    assert "The private runs are at different δ (svt-pc 1e-06, curate 1e-10)" in said and "not equally private" in said
    at = _tradeoff({**params, "todelta": "1e-3"})
    at.button(key="togo").click().run()
    said = " ".join(c.value for c in at.caption)
    assert "Every private run is at δ = 0.001. Formally true, but for svt-pc, δ = 0.001 is above 1/n" in said, said
    at.session_state["tradeoff_tab"] = "Table and downloads"  # only the open tab is drawn
    at.run()
    assert "--delta 0.001" in next(c.value for c in at.code if "cgdcore sweep" in c.value)
    from cgdcore.experiments.presets import PRESETS

    assert PRESETS["privpc-fig1"].spec.delta == 1e-3  # the paper's, which the preset fills into the δ control


def test_tradeoff_lesson_shows_the_advanced_composition_the_ledger_computes():
    """The lesson wrote Dwork–Roth's √(2 ln(1/δ′) Σεᵢ²) + Σεᵢ(e^εᵢ − 1), but the curve on 'advanced composition' is the
    ledger's filter bound min(Σεᵢ, √(2 ln(1/δ) Σεᵢ²) + Σεᵢ²/2) (cgdcore.privacy.ledger): the lesson shows that one."""
    at = _tradeoff({})
    formulas = [x.value for x in at.latex]
    adv = [f for f in formulas if r"\epsilon_{\text{adv}}" in f]
    assert len(adv) == 1 and r"\min" in adv[0] and r"\tfrac{1}{2}\sum_i \epsilon_i^2" in adv[0], formulas
    assert "e^{" not in adv[0] and r"\delta'" not in adv[0]
    assert any("Whitehouse, Ramdas, Rogers & Wu" in m.value for m in at.markdown)  # named as the ledger names it


def test_local_page_noise_is_fresh_unless_a_seed_is_fixed():
    """The Local page's privatisation had a seed of 0 by default, bound to the address: every visitor got the same
    noise, which anyone could rebuild. It uses the app's noise-seed control: fresh entropy by default (its seed never
    shown, the Discovery tab on the same records), fixed only on request with the reproducible-demo warning."""
    at = app(timeout=300)
    at.switch_page("pages/local.py")
    at.query_params.update({"lscen": "Asia network (8 binary variables)", "ln": "2000"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.sidebar.toggle(key="lnseed_fixed").value
    assert not any(w.value.startswith("Noise seed") for w in at.warning)
    assert any("seeded from operating-system entropy" in c.value for c in at.caption)
    assert any("a fresh seed from the operating system" in c.value for c in at.caption)
    at.session_state["local_tab"] = "Discovery"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert "--ldp-seed" not in " ".join(c.value for c in at.get("code"))  # fresh: no seed in the commands
    at = app(timeout=300)
    at.switch_page("pages/local.py")
    at.query_params.update({"lscen": "Asia network (8 binary variables)", "ln": "2000", "lnseed": "5"})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.toggle(key="lnseed_fixed").value
    assert any(w.value.startswith("Noise seed 5:") and "not private against anyone who knows the seed" in w.value
               for w in at.warning), [w.value for w in at.warning]
