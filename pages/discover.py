"""Discover: pick data, a CI test and α; learn the graph; compare it with the truth."""
import json

import streamlit as st

from cgdcore.algorithms import REGISTRY
from cgdcore.citests import CI_TEST_DESCRIPTIONS
from cgdcore.exports import figure_html, markdown_literal
from cgdcore.data import list_datasets
from cgdcore.data.registry import OPTION_CHOICES
from cgdcore.discover import (ALGO_DEFAULTS, ALGORITHMS, DISCRETE_TESTS, PRIVATE_ALGORITHMS, ROUND_ALGORITHMS,
                              SCORE_ALGORITHMS, default_orientation)
from cgdcore.metrics import CONVENTIONS
from ui.scenarios import TOTAL_EPSILON
from ui.common import (check_work, checked_url_settings, route_through_app, digest, explain, load_dataset, load_upload,
                       run_discovery, run_discovery_on_upload, run_stored, session_id, url_accepts_names, user_errors)
from ui.compare import compare_panel, pin_controls
from ui.downloads import ledger_csv, trace_csv, when_clicked
from ui.links import PRIVATE_TESTS
from ui.privacy import (accounting_table, guarantee_message, guarantee_metrics, noise_seed_input, per_order_sum,
                        status_legend)
from ui.widgets import lazy_tabs, option_input

route_through_app()

URL = {"bind": "query-params"}

st.title("Discover a causal graph")
st.caption("Learn a CPDAG with the PC algorithm — plain or differentially private — and compare it with the "
           "true graph.")

explain(
    "What am I looking at?",
    """
The **PC algorithm** (Spirtes, Glymour & Scheines 2000) starts from a complete graph and removes the
edge x — y as soon as a conditional-independence (CI) test says x ⟂ y | S for some set S of x's
neighbours, trying |S| = 0, 1, 2, … (the *order*). It then orients colliders x → k ← y when k is not in
the separating set of x and y (for plain PC, by default, in none of the separating sets of that size), and
propagates orientations with Meek's rules. The result is a
**CPDAG**: arrows that the data can identify, plain lines where both directions are equally compatible.

A CI test returns a p-value; PC treats **p ≥ α** as "independent". Larger α removes fewer edges.
Edges are coloured against the **CPDAG of the true DAG** — the most any method can learn from
observational data: *correct*, *wrongly oriented*, *false positive*, or *missing* (grey, dashed).
""",
    latex=[r"\text{remove } x - y \iff \exists S \subseteq \mathrm{adj}(x)\setminus\{y\}:\ p(x \perp y \mid S) \ge \alpha",
           r"F_1 = \frac{2PR}{P+R},\qquad \mathrm{SHD} = \#\{\{i,j\} : \text{edge mark differs}\}"],
)

#: How this page shows each declared algorithm option (cgdcore.algorithms.PARAMS holds its choices, range and
#: default): the widget's key in the link, its label and a teaching help text, in the order they appear.
OPTION_WIDGETS = {
    "composition": dict(widget_key="comp", label="Composition rule of the budget filter", choices=("advanced", "basic"),
                        help="Fixed before the run. advanced: min(Σε, √(2 ln(1/δ)·Σε²) + Σε²/2), which holds for "
                             "adaptively chosen releases (Whitehouse et al. 2023); basic: Σε with δ = 0. (Gauss-PC "
                             "composes in zCDP.)"),
    "scale": dict(widget_key="scale", label="Decision scale",
                  help="z: noise the statistic itself and compare |z + noise| with a line calibrated to the noise "
                       "(strong evidence keeps its margin). p: noise the p-value and compare it with α, as in the "
                       "papers — every strong dependence is squashed into [0, α], so the noise flips far more "
                       "decisions (Learn, lesson 10)."),
    "statistic": dict(widget_key="stat", label="Kendall statistic",
                      help="sound: every stratum counted over the public normaliser √(9n/4); its sensitivity 9/√n is "
                           "proven. paper: Priv-PC's statistic over the usable strata, whose claimed c₁/√n is not a "
                           "bound (one row can switch a stratum on or off) — the run then has no guarantee."),
    "tweak": dict(widget_key="tweak", label="Threshold tweak t"),
    "curate_sensitivity": dict(widget_key="csens", label="Sensitivity",
                               help="conservative: the statistic's proven Φ(9/√n) − ½; paper: CURATE's 0.3627/√n, "
                                    "which is not a worst-case bound (the run is then not a guarantee)."),
    "leakage": dict(widget_key="cleak", label="Leakage in the optimiser",
                    help="sound: the plan must fit the run's own filter; paper: the paper's per-order t·ε² + "
                         "ε√(2t ln(1/δ′)) with δ′ = 10⁻¹², used to plan, to stop the run and to report (it is never "
                         "below the sound value, so the guarantee is still the budget)."),
    "beta1": dict(widget_key="beta", label="Margins β₁ = β₂", step=0.05,
                  help="CURATE's margins β₁ (type I) and β₂ (type II) around the threshold."),
    "sampler": dict(widget_key="sampler", label="Noise sampler",
                    help="discrete: exact discrete Laplace noise on a fine power-of-two lattice (Canonne, Kamath & "
                         "Steinke 2020), so the privacy proofs hold exactly in floating point. plain: numpy's textbook "
                         "sampler, as in the papers' code, whose low-order bits can reveal the noised value (Learn, "
                         "lesson 9) — the run then has no guarantee."),
}

INFOS = {i.name: i for i in list_datasets()}
NAMES = list(INFOS)

# --------------------------------------------------------------------------- inputs
with checked_url_settings(labels={"private_test": PRIVATE_TESTS.get}), st.sidebar:
    st.header("Data")
    source = st.radio("Source", ["Bundled dataset", "Upload a CSV"], key="src", horizontal=True, **URL)
    upload = None
    if source == "Bundled dataset":
        name = st.selectbox("Dataset", NAMES, index=NAMES.index("asia") if "asia" in NAMES else 0, key="ds",
                            help="See the Datasets page for sources and true graphs.", **URL)
        info = INFOS[name]
        st.caption(f"{info.kind}, {info.n_vars} variables — {info.description}")
        opts = {}
        for opt, default in info.options.items():
            choices = OPTION_CHOICES.get(opt)
            wkey = f"opt_{opt}"
            if choices:
                opts[opt] = st.selectbox(opt.replace("_", " "), choices, index=list(choices).index(default),
                                         key=wkey, **URL)
            else:
                opts[opt] = int(st.number_input(opt.replace("_", " "), min_value=0 if "seed" in opt else 1,
                                                max_value=200, value=int(default), step=1, key=wkey, **URL))
        changed = {k: v for k, v in opts.items() if str(v) != str(info.options[k])}
        spec = name + (":" + ",".join(f"{k}={v}" for k, v in changed.items()) if changed else "")
        if info.n_rows is None:
            n = int(st.number_input("Rows to sample (n)", min_value=10, max_value=2_000_000, value=10_000,
                                    step=1000, key="n", **URL))
        else:
            n = int(st.number_input(f"Rows to use (≤ {info.n_rows:,}; all by default)", min_value=10,
                                    max_value=int(info.n_rows), value=int(info.n_rows), step=100, key="n", **URL))
        seed = int(st.number_input("Seed", min_value=0, max_value=2**31 - 1, value=0, step=1, key="seed", **URL))
    else:
        upload = st.file_uploader("CSV file with a header row", type=["csv", "txt"], key="upload",
                                  help="UTF-8 text, comma-separated, ≤ 200 MB, ≤ 100 columns. Rows with missing "
                                       "values are dropped (and counted).")
        seed = 0

    st.header("Algorithm")
    algo = st.selectbox("Algorithm", [a for a in ALGORITHMS if a not in SCORE_ALGORITHMS], key="algo",
                        help="Constraint-based algorithms; NOTEARS and its private versions are on the Score page.",
                        **URL)
    st.caption(ALGORITHMS[algo])
    private = algo in PRIVATE_ALGORITHMS
    total_eps = round_eps = delta = None
    noise_seed, noise_draw = None, 0
    algo_opts = {}
    if private:
        per_round = algo in ROUND_ALGORITHMS and st.radio(
            "Budget", ["total ε", "per-round ε (as in paper)"], key="budget_mode", horizontal=True,
            help=f"total ε: {TOTAL_EPSILON} per-round ε: the papers' parameter — each sieve-and-examine round, sparse-vector hit "
                 "or EM-PC step costs it, and without a cap the guarantee is the composition of the most rounds any "
                 "run on data of this shape could make.", **URL) != "total ε"
        if per_round:
            round_eps = float(st.number_input("Per-round ε", min_value=0.001, max_value=1000.0, value=1.0, step=0.1,
                                              format="%g", key="reps",
                                              help="The papers' privacy parameter: each sieve-and-examine round, "
                                                   "sparse-vector hit or EM-PC step costs this much.", **URL))
            if st.toggle("Cap the total ε", value=False, key="capped",
                         help="Stop (keeping the untested edges) before the next round would exceed the cap.", **URL):
                total_eps = float(st.number_input("Total budget ε", min_value=0.001, max_value=1e6, value=20.0,
                                                  step=1.0, format="%g", key="eps_cap", **URL))
        else:
            total_eps = float(st.number_input("Total budget ε", min_value=0.001, max_value=1e6, value=10.0, step=1.0,
                                              format="%g", key="eps",
                                              help="A hard cap: the run never records more.", **URL))
        delta = st.select_slider("δ", options=[1e-12, 1e-10, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2],
                                 value=ALGO_DEFAULTS[algo]["delta"], key=f"delta_{algo}",
                                 help="The run's δ: the chance that the advanced-composition filter's bound fails.",
                                 **URL)
        noise_seed, noise_draw = noise_seed_input("nseed")
        with st.expander("Algorithm options"):
            takes = REGISTRY[algo].params  # the widgets follow the algorithm's declared options
            for key, look in OPTION_WIDGETS.items():
                if key not in takes or (key == "composition" and REGISTRY[algo].budget == "zcdp"):
                    continue
                algo_opts[key] = option_input(key, **look)
                if key == "statistic" and algo_opts[key] == "paper":
                    algo_opts["c1"] = st.radio("Priv-PC's constant c₁", [6.0, 4.5], key="c1", horizontal=True,
                                               help="Δz = c₁/√n as claimed. 6: the reference code; 4.5: the "
                                                    "paper's asymptotic value.", **URL)
            if "beta1" in algo_opts:
                algo_opts["beta2"] = algo_opts["beta1"]

    st.header("Test")
    if private and len(REGISTRY[algo].ci_tests) > 1:
        url_accepts_names("private_test", REGISTRY[algo].ci_tests, PRIVATE_TESTS.get)  # ?private_test=g2
        ci_test = st.selectbox("CI test", REGISTRY[algo].ci_tests, key="private_test", format_func=PRIVATE_TESTS.get,
                               help="Both statistics have a proven sensitivity. Kendall's is tiny (9/√n) but it sees "
                                    "only monotone dependence; G sees any dependence, at a sensitivity of about "
                                    "4(ln n + 1). Kendall wins at small ε, G at large ε.", **URL)
        st.caption(CI_TEST_DESCRIPTIONS.get(ci_test, ""))
    elif private:
        ci_test = REGISTRY[algo].ci_tests[0]
        st.caption("CI test: **G-test** (EM-PC's utility counts records that flip it)." if algo == "em-pc" else
                   "CI test: **conditional Kendall τ** — the statistic with a bounded sensitivity.")
    else:
        ci_test = st.selectbox("CI test", ["g2", "chi2", "kendall", "fisherz"], key="test", **URL)
        st.caption(CI_TEST_DESCRIPTIONS.get(ci_test, ""))
    # each algorithm starts from its paper's threshold (0.10 for the Priv-PC family, 0.05 otherwise); a separate
    # key per default keeps a shared link's value meaning the same thing
    alpha_default = ALGO_DEFAULTS[algo]["alpha"]
    alpha = st.select_slider("Significance level α (threshold T)",
                             options=[0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2], value=alpha_default,
                             key="alpha" if alpha_default == 0.05 else "alpha_t",
                             help="PC removes an edge when p ≥ α. The Priv-PC papers use T = 0.10, the others "
                                  "0.05.", **URL)
    max_order_label = st.selectbox("Maximum order |S|", ["no limit"] + [str(k) for k in range(0, 11)], key="maxord",
                                   help="Largest conditioning set PC may test.", **URL)
    max_order = None if max_order_label == "no limit" else int(max_order_label)
    with st.expander("Advanced"):
        variant = st.radio("Skeleton search", ["stable", "original"], key="variant", horizontal=True,
                           help="stable: order-independent (Colombo & Maathuis 2014); original: edges removed at once.",
                           **URL)
        rules = ["standard", "priority", "conservative", "majority", "union"]
        orientation = st.radio("Collider rule", rules, key="orient",
                               index=rules.index(default_orientation(algo, variant)),
                               help="standard: sepset rule; priority: the sepset rule, but a collider that would "
                                    "reverse an arrow already set is skipped (causal-learn's uc_priority=2); "
                                    "conservative (Ramsey et al. 2006) and majority "
                                    "(Colombo & Maathuis 2014) re-test the neighbours' subsets; union (causal-learn's "
                                    "stable PC, the default for PC) re-tests the sets of the removal depth and "
                                    "calls a collider only if the middle node is in none of them.", **URL)
        sided = st.radio("Kendall p-value (sides)", ["two", "one"], index=1 if private else 0,
                         key=f"sided_{'priv' if private else 'pc'}", horizontal=True,
                         help="two-sided, or one-sided as in the Priv-PC reference code (halves every p; the "
                              "private algorithms' thresholds are set on that scale).", **URL)
        bins = int(st.number_input("Bins for numeric columns", min_value=2, max_value=10, value=3,
                                   key="bins", help="Used only when a discrete test meets numeric data: quantile bins "
                                                    "for PC, equal-width bins over the public ranges for a private "
                                                    "algorithm.", **URL))
        ranges_text = st.text_input("Public ranges of numeric columns", key="ranges", placeholder="age=17:90,hours=1:99",
                                    help="column=low:high, known without looking at the data. Private algorithms bin "
                                         "and clip numeric columns to them (bins computed from the data would reveal "
                                         "it); bundled datasets declare their own, which these extend.", **URL)
    auto = st.toggle("Run automatically when settings change", value=True, key="auto", **URL)
    run_clicked = st.button("Run discovery", type="primary", key="run", icon=":material/play_arrow:",
                            width="stretch")

# ---------------------------------------------------------------------------- data
with user_errors():
    if source == "Bundled dataset":  # the shape is known before sampling: refuse an oversized run at once
        check_work(spec, n if info.n_rows is None else min(n, info.n_rows), info.n_vars,
                   {"algo": algo, "max_order": max_order, "options": algo_opts or None})
        with st.spinner("Loading data…"):
            ds = load_dataset(spec, n if info.n_rows is None else (n if n < info.n_rows else None), seed)
        data_key = ("bundled", spec, n, seed)
    else:
        if upload is None:
            st.info("Upload a CSV file in the sidebar to start. Each row is one record, each column one variable; "
                    "categorical text columns and numeric columns are both fine.", icon=":material/upload_file:")
            st.stop()
        payload = upload.getvalue()
        key = digest(payload)
        ds = load_upload(key, upload.name, payload, "drop")
        data_key = ("upload", key)

params = dict(ci_test=ci_test, alpha=float(alpha), variant=variant, orientation=orientation, max_order=max_order,
              kendall_sided=sided, bins=bins if (ci_test in DISCRETE_TESTS and not ds.is_discrete) else None,
              algo=algo, ranges=ranges_text.strip() or None)
if private:
    params.update(epsilon=total_eps, round_epsilon=round_eps, delta=float(delta), seed=noise_seed)
# a fresh-noise run is kept per draw and per session: the same release is shown to its user again, "Draw new noise"
# asks for another one, and another user gets a draw of their own (fresh entropy, not a draw shared by the server)
run_key = data_key + tuple(sorted(params.items())) + tuple(sorted(algo_opts.items())) + (("draw", noise_draw),) + (
    (("session", session_id()),) if private and noise_seed is None else ())

c1, c2, c3, c4 = st.columns(4)
c1.metric("Dataset", markdown_literal(ds.name))  # Markdown: an uploaded file's name is shown as typed
c2.metric("Rows", f"{ds.n:,}")
c3.metric("Variables", ds.d)
c4.metric("Kind", ds.kind)
for note in ds.notes:
    st.caption(f":material/info: {note}")

if not (auto or run_clicked or st.session_state.get("last_run_key") == run_key):
    st.info("Press **Run discovery** to learn the graph.", icon=":material/play_arrow:")
    st.stop()

with user_errors():
    check_work(ds.name, ds.n, ds.d, {"options": algo_opts or None, **params})  # a refusal is not a run
    with st.status(f"Running {algo}…", expanded=False) as status:
        try:
            if algo == "fhe-pc":  # minutes on larger networks: say what the federation is doing meanwhile
                from streamlit.runtime.scriptrunner import get_script_run_ctx

                from cgdcore.fhe.isolated import discover_in_child  # a process of its own: stopping it is immediate

                st.caption("Encrypted federated PC (CKKS): key generation and encryption take tens of seconds; the "
                           "Encrypted page has every setting.")
                owner = (get_script_run_ctx().session_id,) if data_key[0] == "upload" else ()

                def _say(msg, _status=status):
                    _status.update(label=f"fhe-pc: {msg}")

                res = run_stored(("discover-fhe",) + owner + run_key, discover_in_child, ds,
                                 options={"on_message": _say}, **params)
            else:
                runner = run_discovery_on_upload if data_key[0] == "upload" else run_discovery
                res = runner(run_key, ds, options=algo_opts or None, **params)
        except Exception:
            status.update(label=f"{algo} could not run", state="error")
            raise
        tests = f"{res.result.n_ci_tests:,} CI test{'' if res.result.n_ci_tests == 1 else 's'}"
        status.update(label=(f"Discovery complete — {tests} in {res.seconds:.2f} s"
                             if res.result.n_ci_tests or not res.result.stopped_early else
                             "Stopped before its first CI test — see below"), state="complete")
st.session_state["last_run_key"] = run_key
st.session_state["discovery"] = res
# how this run saw numeric columns (said once it ran: above a refusal, such as a one-row file, it misled)
if ci_test in DISCRETE_TESTS and not ds.is_discrete:
    how = ("equal-width bins over their public ranges" if private else
           f"quantile bins (a column with at most {bins} values keeps one bin per value)")
    st.info(f"The {ci_test} test needs discrete data: numeric columns are cut into {bins} {how}.",
            icon=":material/info:")

# ------------------------------------------------------------------------- results
names = list(res.variables)
truth = res.dataset.truth
m = res.metrics
cols = st.columns(7 if m else 3)
if m:
    empty = not res.cpdag.any()
    cols[0].metric("Skeleton F1", f"{m['skeleton_f1']:.3f}", help=CONVENTIONS["skeleton"])
    cols[1].metric("Precision", "—" if empty else f"{m['skeleton_precision']:.3f}",
                   help="No edges were learned, so precision is undefined." if empty else CONVENTIONS["skeleton"])
    cols[2].metric("Recall", f"{m['skeleton_recall']:.3f}", help=CONVENTIONS["skeleton"])
    cols[3].metric("Arc F1", f"{m['arc_f1']:.3f}", help=CONVENTIONS["arc_f1"])
    cols[4].metric("SHD", f"{m['shd']}", help=CONVENTIONS["shd"])
else:
    cols[0].metric("Learned edges", f"{len(res.edges())}")
cols[-2].metric("CI tests", f"{res.result.n_ci_tests:,}")
cols[-1].metric("Run time", f"{res.seconds:.2f} s" if res.seconds >= 0.01 else f"{res.seconds * 1000:.1f} ms")
pv = res.privacy
if pv and not pv.accounted:  # encrypted without differential privacy: nothing to account
    from cgdcore.fhe.run import no_dp_note

    st.warning(no_dp_note(res.params.get("mode", "warm")) + " The Encrypted page offers them, and shows who sees "
               "what.", icon=":material/gpp_bad:")
    pv = None
nothing = next((n for n in res.notes if n.startswith("this run learned nothing")), None) if pv else None
if pv:
    guarantee_metrics(pv)
    guarantee_message(pv, res.dataset.n)
    if nothing:
        st.warning(nothing[0].upper() + nothing[1:] + ".", icon=":material/block:")
    elif m and truth is not None:
        from cgdcore.metrics import against_every_pair, every_pair_f1

        how = against_every_pair(m["skeleton_f1"], truth)
        if how:
            st.warning(f"Skeleton F1 {m['skeleton_f1']:.2f} is {how} linking every pair of variables (F1 "
                       f"{every_pair_f1(truth):.2f}, a guess that uses no data): at this ε and number of rows the "
                       "run's graph says little about the data.", icon=":material/block:")
    if res.result.stopped_early:
        st.warning(f"Stopped early: {res.result.stop_reason}.", icon=":material/savings:")
    diag = res.diagnostics()
    if diag and diag.get("noisy_decisions", 0) >= 10:
        flips, asked = diag["decisions_flipped"], diag["noisy_decisions"]
        with st.container(border=True):
            st.caption(f"**Diagnostics** — {diag['note']}: they show what the noise did, for teaching.")
            st.markdown(f"The noise flipped **{flips:,} of {asked:,}** test decisions ({flips / asked:.0%}) against the "
                        "exact test p ≥ α" + (": at this ε and n the private tests are close to coin flips. Raise ε "
                                               "or the number of rows." if flips / asked > 0.25 else ".")
                        + " The Noise vs threshold tab shows each one.")
if truth is None:
    st.info("This dataset has no known ground truth, so the learned graph is shown alone and no accuracy is "
            "reported.", icon=":material/info:")
else:
    st.caption(f"Ground truth: **{res.dataset.truth_name}**. Metric conventions: skeleton = unordered adjacent "
               "pairs; arc F1 = Priv-PC convention (directed edge tuples, undirected = both directions, against the "
               "true CPDAG); SHD between CPDAGs.")
for note in res.notes:
    shown = note in ds.notes or note == nothing or (pv and note == (pv.noise or {}).get("note"))
    if not shown:  # the dataset's notes, the noise's and "learned nothing" are shown above
        st.caption(f":material/info: {note}")

from cgdcore import viz  # noqa: E402  (plotly is imported only once there is something to draw, after the metrics)

rows = viz.edge_table(res.cpdag, truth, names)
evidence = viz.edge_evidence(res.result, names, private=bool(pv))  # a private run: what it released
fig = viz.graph_figure(res.cpdag, truth, names, evidence=evidence)
st.plotly_chart(fig, key="graph", width="stretch", config={"displaylogo": False})


def _draw(r, key):
    st.plotly_chart(viz.graph_figure(r.cpdag, r.dataset.truth, list(r.variables),
                                     evidence=viz.edge_evidence(r.result, list(r.variables), private=bool(
                                         r.privacy and r.privacy.accounted))),
                    key=key, width="stretch", config={"displaylogo": False})


pin_controls(res, run_key)
with st.expander("Settings of this run and the command that reproduces it", icon=":material/terminal:"):
    from cgdcore.cli import command_line

    st.json(res.params, expanded=False)
    where = spec if source == "Bundled dataset" else f"upload:{upload.name}"
    sampled = n if source == "Bundled dataset" and (info.n_rows is None or n < info.n_rows) else None
    cmd = command_line(where, sampled, {"options": algo_opts or None, **params},
                       data_seed=seed if source == "Bundled dataset" and info.n_rows is None else None)
    st.code(cmd or "(an option of this run has no command-line flag)", language="bash")
    if private and noise_seed is None:
        st.caption("The noise was drawn from fresh entropy and is not reported, so the command reruns the same "
                   "settings with new noise; fix a noise seed in the sidebar for a run anyone can reproduce.")
compare_panel(res, run_key, _draw)

tab_names = ["CI tests per order", "Interactive view", "CI-test log", "Edges & downloads", "Data"]
if pv:
    tab_names = ["Privacy ledger", "Noise vs threshold"] + tab_names


def _ledger():
    """Every release the run made, its totals and the mechanism's parameters."""
    from cgdcore.viz import privacy as vp

    how = (f"its budget, enforced by the {pv.rule}-composition filter" if pv.budget is not None else
           f"without a budget, the {pv.rule} composition of the most releases any run on data of this shape "
           "could make")
    opening = (f"Its guarantee was fixed before it started: {how}." if pv.guarantee else
               f"This run has **no privacy guarantee** ({pv.guarantee_note}); its ledger's totals say what "
               "the releases it recorded would cost if every part of the run had a proof.")
    st.caption(f"Every release the run made is in the ledger. {opening} "
               "The other totals compose the releases this run happened to make, or follow the papers' formulas; "
               "none of them is a guarantee. " + status_legend())
    accounting_table(pv.accounting, "ledger")
    if pv.per_order:
        st.plotly_chart(vp.releases_per_order_figure(pv.per_order), key="ledger_orders", width="stretch")
        st.caption(per_order_sum(pv))
    else:
        st.caption(":material/info: The run made no release, so no order was charged.")
    if pv.gauss_plan:
        if algo == "gauss-pc":
            st.caption("The plan, order by order, in zCDP's ρ: half of what the filter has left (all of it for the "
                       "last order the degrees allow), split over the order's edges — one release each, the "
                       "smallest |z| over all the edge's candidate separating sets plus Gaussian noise — and the "
                       "exponential-mechanism choice of a separating set for each edge it removes (half a "
                       "release's ρ). What an order does not use carries forward. "
                       + ("On the G-test each candidate set releases G minus its χ² critical value (public "
                          "degrees of freedom); the line is a margin calibrated to the noise and the sets' "
                          "degrees of freedom, so it differs per edge and is shown in the trace, not here."
                          if ci_test == "g2" else "The line is the critical value the noisy minimum is compared "
                          "with, calibrated to that order's noise."))
        else:
            st.caption("The plan, order by order: half of what the filter has left (all of it for the last order "
                       "the degrees allow) for the order's upper bound on tests, evenly per test; what an order "
                       "does not use carries forward. The line is the critical value the noisy |z| is compared "
                       "with, calibrated to that order's noise.")
        plan = vp.plan_rows(pv.gauss_plan)
        st.dataframe(plan, hide_index=True,
                     column_config={c: st.column_config.NumberColumn(format="%.4g") for c in plan[0]
                                    if c not in ("order",) and "(" not in c})
    labels = {"subsample_rows": "sieve sub-sample m (rows)", "subsample_ratio": "n/m (rows per sub-sample row)",
              "sieve_epsilon": ("sieve's ε′ on the sub-sample (costs ε/2 after amplification)"
                                if (pv.subsample_ratio or 1) > 1 else
                                "sieve's ε′ (half a round's ε: no sub-sample, n/m = 1)"),
              "threshold_noise_scale": "threshold noise scale 2Δₘ/ε′ ("
                                       + {"z": "z", "p": "p-value", "g": "G-statistic"}.get(
                                           res.params.get("scale"), "decision-scale") + " units)",
              "sieve_noise_scale": "sieve query noise scale 4Δₘ/ε′", "examine_noise_scale": "examine noise scale 2Δ/ε",
              "epsilon_floor": "CURATE's floor: smallest ε per test worth running"}
    extra = {labels[k]: v for k, v in pv.items() if k in labels}
    if extra:
        st.caption("Mechanism parameters of this run")
        st.dataframe({"parameter": list(extra), "value": [float(v) for v in extra.values()]}, hide_index=True,
                     column_config={"parameter": st.column_config.TextColumn(width="large"),
                                    "value": st.column_config.NumberColumn(format="%.4g")})
    if algo in ("svt-pc", "priv-pc"):
        st.caption("A sparse-vector instance is charged when it opens — at the first test after the previous "
                   "hit — because every 'below' answer it gives is part of what it releases; the test that ends "
                   "it (the hit) costs nothing more (Priv-PC's examine, on the full data, costs its own ε/2).")
    led = res.ledger
    if led is not None:
        st.download_button("Download every release (CSV)", when_clicked(ledger_csv, led), "ledger.csv", "text/csv",
                           on_click="ignore", key="dl_ledger", icon=":material/download:")


def _noise():
    """Each noisy test against its threshold, with the true p-value for teaching."""
    from cgdcore.viz import privacy as vp

    nrows = vp.noise_rows(res.result.trace, float(alpha), names)
    flipped = sum(r["flipped"] for r in nrows)
    scale = res.params.get("scale") or "p"
    if nrows:  # the captions, only above a chart
        note = res.diagnostics()["note"] if res.diagnostics() else "computed from the exact data"
        st.caption(f"Diagnostics — {note}: the true p-values below are not released by the run"
                   + (", and neither are the sparse vector's noisy values and thresholds: it releases only each "
                      "test's above/below answer" if _answer_only(res.result.trace) else "") + ".")
        st.caption("Each dot is one CI test in the order PC asked it. Top: its **true** p-value (blue circles) "
                   "against α. Bottom: the **noisy** value the mechanism compared (vermilion diamonds) and the "
                   "threshold it was compared with (grey steps), on the run's decision scale ("
                   + ("the p-value plus noise" if scale == "p" else "the statistic plus noise: not a p-value, and "
                      "α is not its line") + "). Which side of the threshold means 'independent' depends on the "
                   f"mechanism and its stage; the hover and the table give each test's decision. Ringed in "
                   f"black: the {flipped:,} decisions out of {len(nrows):,} that differ from the non-private test "
                   "p ≥ α.")
        st.plotly_chart(vp.noise_threshold_figure(nrows, float(alpha), scale=scale), key="noise_fig",
                        width="stretch")
        only = st.toggle("Only flipped decisions", key="only_flipped")
        view = [r for r in nrows if r["flipped"]] if only else nrows
        st.dataframe(view, hide_index=True, width="stretch", height=300,
                     column_config={c: st.column_config.NumberColumn(format="%.4g")
                                    for c in ("true p", "noisy", "noise", "threshold", "ε")})
    else:
        st.info("EM-PC noises its choices, not the tests: it has no noisy test values to show."
                if algo == "em-pc" else "The run stopped before its first noisy test, so there is nothing to show.",
                icon=":material/info:")


def _answer_only(trace) -> bool:
    """Does the trace hold sparse-vector queries, whose noisy values and thresholds are not released?"""
    from cgdcore.privacy.mechanisms import ANSWER_ONLY_STAGES

    return any(getattr(r, "stage", None) in ANSWER_ONLY_STAGES for r in trace)


def _interactive():
    """The learned graph as a draggable network."""
    st.caption("Drag nodes to rearrange; hover an edge for its category and details.")
    st.iframe(viz.pyvis_html(res.cpdag, truth, names, evidence=evidence), height=640, alt="Interactive learned graph")


def _per_order():
    """CI tests per conditioning-set size."""
    per = res.result.tests_per_order
    left, right = st.columns([2, 1])
    left.plotly_chart(viz.tests_per_order_figure(per), key="per_order", width="stretch")
    right.dataframe({"order": list(range(len(per))), "CI tests": list(per)}, hide_index=True)
    if res.result.seconds > 0:
        right.metric("Tests per second", f"{res.result.n_ci_tests / max(res.result.seconds, 1e-9):,.0f}",
                     help=f"{res.result.n_ci_tests:,} tests in the skeleton search's {res.result.seconds:.3f} s; "
                          f"the run time above ({res.seconds:.2f} s) also counts loading the statistics and "
                          "orienting the edges")


def _test_log():
    """Every CI test in the order PC asked it, with its downloads."""
    import pandas as pd

    tr = res.result.trace
    records = res.trace_json()  # the records of `discover --json --trace`
    log = pd.DataFrame({
        "x": [r["x"] for r in records], "y": [r["y"] for r in records],
        "S": [", ".join(r["S"]) or "∅" for r in records], "order": [r["order"] for r in records],
        "statistic": [r.statistic for r in tr], "p-value": [r.p_value for r in tr],
        "decision": ["independent → remove" if r["independent"] else "dependent → keep" for r in records],
        "phase": [r["phase"] for r in records]})
    if pv:
        log["stage"] = [r["stage"] for r in records]
        for col, field in (("released", "released"), ("sensitivity", "sensitivity"), ("noise", "noise"),
                           ("noisy value", "noisy"), ("threshold", "threshold"), ("ε charged", "epsilon")):
            log[col] = [r[field] for r in records]
        from cgdcore.privacy.mechanisms import ANSWER_ONLY_STAGES

        # what each query put out under ε: the sparse vector its answer only; the Laplace and Gaussian
        # mechanisms their noisy value (the decision is computed from it)
        log["covered by ε"] = ["the decision" if r["stage"] in ANSWER_ONLY_STAGES else
                               "the noisy value" if r["noisy"] is not None else "" for r in records]
        st.caption("statistic, p-value, released and noise are computed from the exact data: they are shown to "
                   "teach what the noise did and are not covered by ε."
                   + (" In the svt and sieve stages the noisy value and the threshold are not covered either: the "
                      "sparse vector releases only the decision." if _answer_only(tr) else ""))
    only_removed = st.toggle("Only tests that removed an edge", key="log_removed")
    view = log[log["decision"].str.startswith("independent")] if only_removed else log
    st.dataframe(view, hide_index=True, width="stretch", height=380,
                 column_config={c: st.column_config.NumberColumn(format="%.4g")
                                for c in ("p-value", "statistic", "released", "sensitivity", "noise", "noisy value",
                                          "threshold", "ε charged")})
    l1, l2 = st.columns(2)
    l1.download_button("CI-test trace (CSV)", when_clicked(trace_csv, records), "ci_test_trace.csv", "text/csv",
                       on_click="ignore", key="dl_log", icon=":material/download:")
    l2.download_button("CI-test trace (JSON)", when_clicked(json.dumps, records, indent=1), "ci_test_trace.json",
                       "application/json", on_click="ignore", key="dl_trace", icon=":material/download:")


def _edges():
    """The learned edges against the truth, and the graph's downloads."""
    learned_rows = [r for r in rows if r.kind != "missing"]
    st.dataframe({"source": [names[r.source] for r in learned_rows],
                  "edge": ["→" if r.directed else "—" for r in learned_rows],
                  "target": [names[r.target] for r in learned_rows],
                  "category": [r.kind for r in learned_rows]}, hide_index=True, width="stretch")
    missing = [r for r in rows if r.kind == "missing"]
    if missing:
        st.caption("Missing true edges: " + ", ".join(f"{names[r.source]}–{names[r.target]}" for r in missing))
    d1, d2, d3, d4 = st.columns(4)
    d1.download_button("Edge list (CSV)", when_clicked(viz.edge_list_csv, rows, names), "edges.csv", "text/csv",
                       on_click="ignore", key="dl_csv", icon=":material/download:")
    d2.download_button("Result (JSON)", when_clicked(lambda r: json.dumps(r.to_json(), indent=2), res), "result.json",
                       "application/json", on_click="ignore", key="dl_json", icon=":material/download:")
    d3.download_button("Graph (DOT)", when_clicked(viz.to_dot, res.cpdag, truth, names, evidence=evidence), "graph.dot",
                       "text/vnd.graphviz", on_click="ignore", key="dl_dot", icon=":material/download:")
    d4.download_button("Graph figure (HTML)", when_clicked(figure_html, fig, f"{res.algorithm} on {res.dataset.name}"),
                       "graph.html", "text/html", on_click="ignore", key="dl_fig", icon=":material/download:")


def _data():
    """The first rows of the data the run used."""
    import numpy as np

    head = res.dataset.data[:20]
    st.caption(f"First 20 of {res.dataset.n:,} rows" + (" (state labels)" if res.dataset.is_discrete else ""))
    table = {}
    for j, v in enumerate(names):
        st_labels = res.dataset.states[j]
        col = head[:, j]
        table[v] = [st_labels[int(c)] for c in col] if st_labels is not None else np.asarray(col, float)
    st.dataframe(table, hide_index=True)
    st.caption(f"Source: {res.dataset.source or 'uploaded by you'}. Licence: {res.dataset.licence or '—'}.")


#: only the open tab is drawn (ui.widgets.lazy_tabs): the closed tabs' tables, charts and the interactive view's page
#: cost nothing on the reruns where nobody looks at them
DRAW_TAB = {"Privacy ledger": _ledger, "Noise vs threshold": _noise, "Interactive view": _interactive,
            "CI tests per order": _per_order, "CI-test log": _test_log, "Edges & downloads": _edges, "Data": _data}
lazy_tabs({name: DRAW_TAB[name] for name in tab_names}, key="discover_tab",
          keep={"only_flipped": False, "log_removed": False})
