"""Demo: one-click scenarios for stakeholders, summed up for a projector; the link reproduces the view."""
import streamlit as st

from cgdcore.exports import code_span
from cgdcore.privacy.ledger import readable

from ui.common import checked_url_settings, explain, refuse_work, route_through_app, run_cached, user_errors

route_through_app()

URL = {"bind": "query-params"}

from ui.scenarios import CHOICES, SCENARIOS, run_scenario, scenario_work, settings_for  # noqa: E402

#: widget key of a scenario's setting, also the link's parameter name (e.g. ?scenario=epsilon-cost&cost_eps=2):
#: one key per scenario and setting, so each widget's default is its scenario's value and a link that leaves a
#: setting out (Streamlit drops defaults from the URL) means exactly that scenario's default
SHORT = {"epsilon-cost": "cost", "local-vs-central": "lvc", "hospitals": "hosp", "curve": "curve"}
SETTING = {"dataset": "ds", "n": "n", "epsilon": "eps", "owners": "owners", "reps": "reps", "seed": "seed"}


def widget_key(scenario_key: str, setting: str) -> str:
    return f"{SHORT[scenario_key]}_{SETTING[setting]}"

LABELS = {"dataset": "Network", "n": "Rows (n)", "epsilon": "ε", "owners": "Hospitals", "reps": "Runs per ε",
          "seed": "Noise seed"}


def _choose(key: str):
    """One click: remember the scenario (in the link too) and put every one of its widgets back to its setting."""
    st.session_state["dsc"] = key
    st.query_params["scenario"] = key
    for k in SCENARIOS[key].settings:
        st.session_state.pop(widget_key(key, k), None)


# the link is the source of truth (a shared link, or the browser's Back button); the widgets read their own parameters
requested = st.query_params.get("scenario")
if requested in SCENARIOS:
    st.session_state["dsc"] = requested
else:
    if requested is not None:
        st.warning(f"The link names an unknown scenario {code_span(requested)}; showing the first one. Scenarios: "
                   + ", ".join(f"`{k}`" for k in SCENARIOS) + ".", icon=":material/link_off:")
    st.session_state.setdefault("dsc", "epsilon-cost")
    st.query_params["scenario"] = st.session_state["dsc"]
key = st.session_state["dsc"]
scenario = SCENARIOS[key]

with checked_url_settings():
    present = st.toggle("Projector view", key="present", help="Hide the sidebar and controls and enlarge the text; "
                        "the link keeps this view.", **URL)
if present:
    st.html("""<style>
      [data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], header {display: none !important;}
      .stMainBlockContainer {max-width: 100% !important; padding-top: 1rem !important;}
      [data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li {font-size: 1.35rem !important;}
      [data-testid="stMetricValue"], [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p
        {font-size: 3rem !important;}
      [data-testid="stMetricLabel"] p {font-size: 1.2rem !important;}
      .st-key-demo-settings {display: none !important;}
      [data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p, .stCaption, .stCaption p
        {font-size: 1.05rem !important;}
      .st-key-demo-buttons button p {font-size: 0.95rem !important;}
    </style>""")
else:
    st.title("Demo")
    st.caption("Four questions stakeholders ask, each answered by real runs with one click. The link in the address "
               "bar reproduces exactly this view (scenario, settings and projector mode): share it.")
    explain("What am I looking at?", """
Each scenario sets every parameter, runs the real algorithms (nothing is precomputed or faked), and sums the outcome
up in one sentence and a few numbers. **Skeleton F1** is the share of the true network's connections found, balanced
against false ones (1 = perfect). **ε** is what the run guarantees: its budget, fixed before it started (a run
without a budget can only promise the composition of the most releases it could possibly make). The ledger on the
Discover page shows every release. Every run here uses a fixed noise seed so the demo reproduces exactly: it is a
demonstration, not a private release. Change a setting below to ask a variation; the Discover, Local privacy,
Encrypted and Trade-off pages go deeper.
""", latex=[r"F_1 = \frac{2PR}{P+R},\quad P = \frac{\text{true adjacencies found}}{\text{adjacencies found}},\quad "
           r"R = \frac{\text{true adjacencies found}}{\text{true adjacencies}};\qquad F_1^{\text{every pair}} = "
           r"\frac{2T}{T + d(d-1)/2}"])

with st.container(key="demo-buttons"):  # two rows of two, so the titles fit; kept in projector view
    for row in (list(SCENARIOS.values())[:2], list(SCENARIOS.values())[2:]):
        for col, s in zip(st.columns(2), row):
            col.button(s.title, key=f"dgo_{s.key}", on_click=_choose, args=(s.key,), width="stretch",
                       type="primary" if s.key == key else "secondary")

heading = st.empty()
question = st.empty()  # both filled once the settings are read

with checked_url_settings():
    settings = {}
    # in projector view the settings stay on the page (their values live in the link) but are hidden
    with st.container(key="demo-settings"), st.expander("Settings of this scenario", expanded=False):
        cols = st.columns(len(scenario.settings))
        for col, (k, default) in zip(cols, scenario.settings.items()):
            wk = widget_key(key, k)
            if k == "seed":
                settings[k] = int(col.number_input(LABELS[k], 0, 2 ** 31 - 1, value=default, key=wk, **URL))
            else:
                settings[k] = col.selectbox(LABELS[k], CHOICES[k], index=CHOICES[k].index(default), key=wk, **URL)

with user_errors():
    settings = settings_for(key, settings)
    heading.markdown(f"## {scenario.heading(settings)}")
    question.markdown(f"*{scenario.ask(settings)}*")
    units, commands = scenario_work(key, settings)
    if refuse_work(units, "scenario", "a smaller network, fewer rows or fewer runs per ε", lambda: commands):
        st.stop()
    bar = st.progress(0.0, text="running …") if key == "curve" else None

    def _progress(done, total, eta, row):
        left = "" if eta is None else f" · about {eta:.0f} s left"
        bar.progress(done / max(total, 1), text=f"{done} / {total} runs{left}")

    with st.spinner("Running the scenario …"):
        outcome = run_cached(("demo", key, tuple(sorted(settings.items()))), run_scenario, key, settings,
                             _progress=_progress if bar is not None else None)
    if bar is not None:
        bar.empty()

st.success(outcome.headline, icon=":material/campaign:")
if key != "hospitals":  # the encrypted runs add no noise; every other scenario's noise comes from its fixed seed
    st.warning(f"Every run here draws its noise from a fixed, public seed (noise seed {settings['seed']}), so that it "
               "is a reproducible demonstration, not a private release: it is not private against anyone who knows "
               "the seed. Each ε and δ is what the same run guarantees with fresh noise, as Discover draws it by "
               "default.",
               icon=":material/casino:")

from cgdcore import viz  # noqa: E402

if outcome.panels:
    from cgdcore.privacy.ledger import weakness

    cards = st.columns(min(len(outcome.panels), 5))
    private = any(p.epsilon is not None for p in outcome.panels)
    for col, p in zip(cards * 2, outcome.panels):
        with col.container(border=True, height="stretch"):  # equal heights: the row's tallest card sets them
            st.markdown(f"**{p.label}**")
            m = p.discovery.metrics
            if private:  # side by side in up to three cards; in four or more, a label and 14,704 fit only stacked
                a, b = st.columns(2) if len(outcome.panels) <= 3 else (st.container(), st.container())
                a.metric("skeleton F1", f"{m['skeleton_f1']:.2f}")
                b.metric("guaranteed ε", "—" if p.epsilon is None else readable(p.epsilon),
                         help="the ε the run can promise with fresh noise, fixed before it started, at the δ below; "
                              "— = no differential privacy")
                if p.epsilon is not None:
                    pv = p.discovery.privacy
                    b.markdown(f"at δ = {readable(pv.delta)}")
                    weak = weakness(p.epsilon, pv.delta, p.discovery.dataset.n)  # as ui.privacy.guarantee_message
                    if weak:  # a badge, its reason on hover: a warning box of ten lines stretched the row's cards
                        st.markdown(":orange-badge[:material/shield: protects little]", help=weak)
            else:
                st.metric("skeleton F1", f"{m['skeleton_f1']:.2f}")
            if p.note:
                st.caption(p.note)
    labels = [p.label for p in outcome.panels]
    pick = st.segmented_control("Graph of", labels, default=labels[1] if key == "epsilon-cost" else labels[0],
                                key=f"dgraph_{key}") or labels[0]
    d = outcome.panels[labels.index(pick)].discovery
    fig = viz.graph_figure(d.result.cpdag, d.dataset.truth, d.dataset.variables, title_learned=pick,
                           title_truth="True network", height=620 if present else None)
    if present:
        fig.update_layout(font=dict(size=18), legend=dict(font=dict(size=18)), hoverlabel=dict(font_size=18))
        fig.update_annotations(font_size=22)
        fig.update_traces(textfont_size=20, selector=dict(type="scatter"))
    st.plotly_chart(fig, width="stretch", key="dfig")
    if key == "hospitals":
        from cgdcore.fhe.run import what_each_party_sees

        fhe = outcome.extra["fhe"]
        sees = what_each_party_sees(fhe["mode"], None)
        w = st.columns(len(sees))
        for col, (who, what) in zip(w, sees.items()):
            col.markdown(f"**{who.capitalize()}** {'see' if who.endswith('s') else 'sees'}: {what}.")
        st.caption(f"Keys: {fhe['ckks']}. Each hospital uploads {fhe['bytes']['upload_per_owner'][0] / 1e6:.1f} MB "
                   "of ciphertexts; the Encrypted page also runs the statistic itself under encryption.")
else:
    from cgdcore.viz.sweep import curves_figure

    from ui.scenarios import CURVE_NAMES, curve_guarantees, local_dip

    summary = outcome.extra["summary"].assign(algorithm=lambda f: f["algorithm"].map(CURVE_NAMES),
                                              dataset=lambda f: f["dataset"].str.capitalize())
    fig = curves_figure(summary, "skeleton_f1", "total ε (log scale)",
                        every_pair=dict.fromkeys(summary["dataset"], outcome.extra["every_pair"]))
    size = 20 if present else 14
    fig.update_layout(height=560 if present else 460, font=dict(size=size), legend=dict(font=dict(size=size)))
    fig.update_xaxes(tickfont_size=size, title_font_size=size)
    fig.update_yaxes(tickfont_size=size, title_font_size=size)
    fig.update_annotations(font_size=size)
    st.plotly_chart(fig, width="stretch", key="dfig")
    st.caption("Mean ± sd of skeleton F1 over the runs at each ε; the black dotted line is PC without privacy (Kendall's "
               "τ, the private algorithms' test; local k-RR + PC uses the G-test on the randomised records), and the "
               "grey dashed line the F1 of linking every pair. Gauss-PC makes one Gaussian-noised release per edge "
               "and order, composed in zCDP; Priv-PC plays rounds of the largest ε its filter admits four times per "
               "pair of variables; all decide on the statistic's own scale with a line calibrated to the noise. "
               f"{curve_guarantees(outcome.extra['table'], settings['seed'])}. The Trade-off page runs bigger sweeps, "
               "including the papers' own settings.")

    dip = local_dip(outcome.extra["table"])
    if dip is not None:
        (lo, p_lo, r_lo), (hi, p_hi, r_hi) = dip
        st.caption(f"Local k-RR + PC scores lower at ε = {hi:g} than at ε = {lo:g}: precision {p_hi:.2f} against "
                   f"{p_lo:.2f}, recall {r_hi:.2f} against {r_lo:.2f}. Its randomised records are measurement errors: "
                   "a CI test that conditions on a noisy copy of a variable does not block the paths through the true "
                   "one, so dependence that should vanish remains and PC keeps extra edges (Scheines & Ramsey 2016). "
                   "With more noise every dependence weakens, false and true alike; with little noise the copies are "
                   "nearly exact. So its F1 need not rise with ε, while its guarantee, ε per record, weakens as ε "
                   "grows.")

if not present:
    st.caption("Every number above comes from runs made now, on this machine, with the settings shown.")
