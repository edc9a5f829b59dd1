"""Trade-off: privacy-utility sweeps — F1 / SHD, CI tests and run time against ε, with the papers' numbers."""
import threading
import time

import streamlit as st

from cgdcore.cancel import checkpoint
from cgdcore.data import list_datasets
from cgdcore.exports import csv_text, figure_html, markdown_literal
from ui.common import (checked_url_settings, explain, memory, refuse_work, route_through_app, url_accepts_names,
                       user_errors)
from ui.downloads import parquet_bytes, when_clicked
from ui.widgets import lazy_tabs
from ui.priority import not_drawing

route_through_app()

URL = {"bind": "query-params"}
ALGOS = ["pc[ci_test=kendall]", "pc", "gauss-pc", "gauss-pc[ci_test=g2]", "priv-pc", "svt-pc", "em-pc", "curate", "laplace-pc",
         "priv-pc[scale=p]", "svt-pc[scale=p]", "curate[scale=p]", "laplace-pc[scale=p]", "priv-pc[subsample_ratio=1]",
         "noleaks", "curate-score", "notears", "fhe-pc", "pc+krr-cwise", "pc+krr-comb", "pc+geo-cwise", "pc+geo-comb"]
DEFAULTS = {"tods": ["sachs"], "ton": 100_000, "toalg": ["priv-pc", "svt-pc", "em-pc"], "toeps": "logspace:-2:1.5:21",
            "toreps": 5, "toseed": 0, "tobud": "native", "tovar": "original", "todelta": "each algorithm's",
            # the chart's controls: set by a preset, then read back from the widgets (the figure follows them)
            "tox": "epsilon_total", "toclip": False, "tometric": "skeleton_f1"}
CHART_METRICS = ["skeleton_f1", "arc_f1", "shd"]
#: the private runs' δ: each algorithm's default (1e-6 for most), or one for all (the Priv-PC presets: the paper's
#: 1e-3)
DELTAS = {"each algorithm's": None, "1e-3": 1e-3, "1e-4": 1e-4, "1e-5": 1e-5, "1e-6": 1e-6, "1e-8": 1e-8,
          "1e-10": 1e-10}

st.title("Privacy–utility trade-off")
st.caption("Sweep ε over datasets and algorithms, repeat each point with fresh noise, and see what each privacy "
           "budget buys: F1 and SHD with mean ± sd bands, CI tests, run time, and the papers' own numbers.")

explain(
    "What am I looking at?",
    """
Each point is one (dataset, algorithm, ε) averaged over repetitions that differ only in their noise seed
(`SeedSequence.spawn` from the sweep's root seed: every row of the table can be re-run alone). The band is ± one
standard deviation.

**Which ε?** The sparse-vector family (SVT-PC, Priv-PC, EM-PC) is parameterised by a *per-round* ε and spends
it again on every sieve hit, so what a run finally costs depends on the data. CURATE, Laplace-PC and the
score-based methods take a *total* ε and plan within it. Put the x-axis on the **requested ε** and the families
are not comparable; put it on the **reported total** and they are — but the total depends on the accounting rule:
basic composition, advanced composition (the filter bound of Whitehouse, Ramdas, Rogers & Wu, 2023, as the
privacy ledger computes it, at the run's δ), the privacy-loss distribution, or the paper's own formula.
Only the **guaranteed ε** is a guarantee; the others are *not a guarantee* (they count only the releases a run
happened to make, or follow the paper's formula) and are there to compare. Switching the rule moves the curves
sideways; that gap is the price of loose accounting.

Priv-PC Figure 1 plots total ε by advanced composition (δ = 10⁻³) and keeps points with total ε in [1, 100]; its
preset draws the ledger's advanced total below.
F1 on CPDAG arcs is the reference codes' metric; skeleton F1 isolates what privacy changes (only the skeleton
is noised).
""",
    latex=[r"\epsilon_{\text{basic}} = \sum_i \epsilon_i,\qquad "
           r"\epsilon_{\text{adv}} = \min\Big(\sum_i \epsilon_i,\ \sqrt{2\ln(1/\delta)\sum_i \epsilon_i^2} + "
           r"\tfrac{1}{2}\sum_i \epsilon_i^2\Big)",
           r"F_1 = \frac{2PR}{P+R},\quad P = \frac{|E\cap E^*|}{|E|},\quad R = \frac{|E\cap E^*|}{|E^*|}"],
)

NETWORKS = [i.name for i in list_datasets() if i.kind == "discrete" and i.truth and i.n_rows is None]


@st.cache_resource(max_entries=1)
def _one_sweep_at_a_time() -> threading.Lock:
    return threading.Lock()


def _store(key: str) -> dict:
    """Rows of the sweep with this key (its full parameters, seeds included), kept across reruns and
    sessions (in the server's byte-bounded cache, ui.common.memory): a finished sweep is shown at once, an
    interrupted one resumes where it stopped."""
    return memory().get_or_compute("sweep", key, lambda: {"rows": [], "table": None})


def _apply_preset():
    from cgdcore.experiments.presets import PRESETS

    p = PRESETS.get(st.session_state.get("topre"))
    if p is None:
        return
    s = p.spec
    st.session_state["_to_preset_applied"] = True  # this run changes linked settings on purpose: not "refused"
    st.session_state.update({
        "tods": [d for d in s.datasets if d in NETWORKS], "ton": int(s.n[0]),
        "toalg": [a for a in s.algorithms if a in ALGOS], "toreps": int(s.reps), "toseed": int(s.seed),
        "tobud": s.budget, "tovar": s.variant, "todelta": next(k for k, v in DELTAS.items() if v == s.delta),
        "toeps": ",".join(f"{e:g}" for e in s.epsilons) if len(s.epsilons) <= 4 else
        f"logspace:{_log10(s.epsilons[0]):g}:{_log10(s.epsilons[-1]):g}:{len(s.epsilons)}",
        # how to read it, set in the same place: the chart's widgets take these values and the figure is built
        # from what the widgets return (a preset once drew defaults of its own while the controls showed these)
        "tox": p.x, "toclip": p.x_range is not None,
        "tometric": p.metric if p.metric in CHART_METRICS else DEFAULTS["tometric"]})


def _log10(v: float) -> float:
    import math

    return round(math.log10(v), 6)


for k, v in DEFAULTS.items():
    # A value in the link wins. Set here too, it would be lost whenever it equals the widget's own default
    # (?toreps=1 is min_value): Streamlit drops such a URL value and the session's 5 would run instead.
    if k not in st.query_params:
        st.session_state.setdefault(k, v)

from cgdcore.experiments.presets import PRESETS  # noqa: E402

#: settings a preset filled in on this run (on purpose, so not a link's refused values)
preset_filled = set(DEFAULTS) if st.session_state.pop("_to_preset_applied", False) else set()
with checked_url_settings(changed_by_page=preset_filled), st.sidebar:
    st.header("Sweep")
    preset = st.selectbox("Paper preset", ["custom", *PRESETS], key="topre", on_change=_apply_preset,
                          help="Fill every field with a paper's setting: " + "; ".join(
                              f"{k}: {p.title}" for k, p in PRESETS.items()), **URL)
    datasets = st.multiselect("Datasets", NETWORKS, key="tods", **URL)
    n = int(st.number_input("Rows per dataset (n)", min_value=1000, max_value=1_000_000, step=10_000, key="ton",
                            **URL))
    # the sweep's labels, as the command line writes them (a link names them the same way); charts say DP-NOTEARS
    algos = st.multiselect("Algorithms", ALGOS, key="toalg", help=(
        "pc[ci_test=kendall]: the non-private reference with the private algorithms' test; [scale=p]: the decision "
        "on the p-value scale, as in the papers (the default decides on the statistic z); priv-pc[subsample_ratio=1]: "
        "Priv-PC without sub-sampling; noleaks: DP-NOTEARS (its command-line name); fhe-pc: encrypted aggregation of owners' discrete-Laplace-noised histograms (DP once); "
        "pc+MECH: PC on locally privatised data."), **URL)
    eps_text = st.text_input("ε grid", key="toeps", help="Comma-separated values (0.1,1,10) or "
                             "logspace:START:STOP:COUNT in log10 units (logspace:-2:1.5:21 is Priv-PC's grid).", **URL)
    reps = int(st.number_input("Repetitions per ε", min_value=1, max_value=100, key="toreps", **URL))
    seed = int(st.number_input("Root seed", min_value=0, max_value=2**31 - 1, key="toseed", **URL))
    budget = st.radio("ε means", ["native", "total"], key="tobud", horizontal=True, help=(
        "native: per-round ε for SVT-PC/Priv-PC/EM-PC (uncapped; the papers' figures), total ε for the rest. "
        "total: a hard cap for every algorithm; the sparse-vector family runs rounds of the largest ε its filter "
        "admits a fixed number of times per pair of variables (SVT-PC once, Priv-PC four times)."),
        **URL)
    variant = st.radio("PC skeleton", ["original", "stable"], key="tovar", horizontal=True,
                       help="original: edges removed at once (the reference codes); stable: removals per order.",
                       **URL)
    delta = DELTAS[st.selectbox("δ of the private runs", list(DELTAS), key="todelta", help=(
        "each algorithm's: its default (1e-6; CURATE 1e-10, the score algorithms 1e-5). The Priv-PC presets use the "
        "paper's 1e-3, which is above 1/n beyond 1,000 rows. Runs compared at the same ε are compared at the same "
        "privacy only at the same δ."), **URL)]
    jobs = st.radio("Worker processes", [2, 1], horizontal=True, key="tojobs",
                    help="2 uses both cores (separate processes, each with its own statistics cache); "
                         "1 runs in the app's process and reuses its cache across sweeps.", **URL)

with user_errors():
    from cgdcore.experiments import SweepSpec, parse_epsilon_grid

    spec = SweepSpec(datasets=tuple(datasets), algorithms=tuple(algos), epsilons=parse_epsilon_grid(eps_text),
                     n=(n,), reps=reps, seed=seed, budget=budget, variant=variant, delta=delta)
    configs = spec.runs()

p = PRESETS.get(preset)
if p is not None:
    st.info(f"**{p.title}** — {p.source}. {p.notes}", icon=":material/menu_book:")
store = _store(spec.key)
done = {r["seed"]: r for r in store["rows"]}
have = sum(1 for c in configs if c.seed in done)


def sweep_command() -> str:
    """The command line running this sweep (it has no work ceiling)."""
    return (f"python -m cgdcore sweep --dataset {','.join(spec.datasets)} --n {n} --algos '{','.join(spec.algorithms)}' "
            f"--epsilons {eps_text} --reps {reps} --seed {seed} --budget {budget} --variant {variant} "
            + (f"--delta {delta:g} " if delta is not None else "") + "--out results.csv")


from cgdcore.experiments.cost import sweep_units  # noqa: E402

# the runs still to compute, summed before any starts (cgdcore.experiments.cost); the rows already stored are shown
too_large = refuse_work(sweep_units(spec, jobs=int(jobs), done=[c.key for c in configs if c.seed in done]), "sweep",
                        "fewer datasets, rows, algorithms, ε values or repetitions", lambda: [sweep_command()])
c1, c2, _ = st.columns([2, 2, 3])
c1.metric("Runs in this sweep", f"{len(configs):,}")
c2.metric("Already computed", f"{have:,}")
# the action on a line of its own under what it will run, in view when the page opens (beside the metrics it read
# as a third one; at the sidebar's foot it was below the fold of a 900 px window)
go = st.button("Run sweep" if have == 0 else ("All runs done" if have == len(configs) else "Resume sweep"),
               type="primary", key="togo", icon=":material/play_arrow:",
               disabled=have == len(configs) or not configs or too_large)
if len(configs) > 600:
    st.caption(f"{len(configs):,} runs can take several minutes; the command line runs the same sweep "
               "(`python -m cgdcore sweep`) on more cores or a Dask cluster.")

from cgdcore.viz import sweep as vs  # noqa: E402
from cgdcore.experiments import X_AXES, X_AXIS_NAMES  # noqa: E402

# The chart's controls are drawn on every run, before any sweep has rows: a control that is not drawn keeps its
# last value and hands it back when it reappears, so a preset chosen while no rows were shown was lost (the chart
# drew the old axis and metric while the controls' labels said otherwise). No index/value here either: each control
# takes its value from the session (defaults, a preset, or the link) and every figure and export below is drawn from
# what the controls return.
opts = st.columns([3, 2, 2])
with checked_url_settings(changed_by_page=preset_filled,  # a link's value the controls refuse is named
                          labels={"tox": X_AXIS_NAMES.get, "tometric": vs.METRICS.get}):
    url_accepts_names("tox", list(X_AXES), X_AXIS_NAMES.get)  # ?tox=epsilon_total as well as its label
    url_accepts_names("tometric", CHART_METRICS, vs.METRICS.get)
    x_axis = opts[0].selectbox("Chart x-axis", list(X_AXES), key="tox", format_func=X_AXIS_NAMES.get, **URL,
                               help="\n".join(f"- **{X_AXIS_NAMES[k]}**: {label}" for k, label in X_AXES.items()))
    clip = opts[1].toggle("Only total ε in [1, 100] (Figure 1)", key="toclip", disabled=x_axis == "epsilon", **URL)
    metric = opts[2].selectbox("Utility", CHART_METRICS, key="tometric", format_func=lambda k: vs.METRICS[k], **URL)

if go and have < len(configs) and not too_large:
    from cgdcore.experiments import run_sweep

    with not_drawing(heavy=True):  # waiting or computing, a sweep gives way to pages being drawn (ui/priority.py)
        bar = st.progress(have / len(configs), text="Waiting for the sweep engine…")
        lock = _one_sweep_at_a_time()
        if not lock.acquire(blocking=False):
            bar.progress(have / len(configs), text="Another sweep is running; this one starts when it finishes…")
            while not lock.acquire(timeout=0.2):
                checkpoint()  # the user may leave while waiting
        try:
            t0 = time.perf_counter()

            def progress(k, total, eta, row):
                left = "" if eta is None else f" · about {eta:.0f} s left"
                bar.progress(k / total, text=f"{k:,} / {total:,} runs{left}")

            with user_errors():
                table = run_sweep(spec, jobs=int(jobs), done_rows=list(store["rows"]), on_row=store["rows"].append,
                                  progress=progress)
            store["table"] = table
            store["seconds"] = time.perf_counter() - t0
        finally:
            lock.release()
            memory().put("sweep", spec.key, store)  # measured again now that it holds the rows
    st.rerun()  # draw the page afresh from the finished table (counts, button state)

rows = list(store["rows"])
if not rows and too_large:
    st.stop()  # the refusal above says what to do
if not rows:
    st.info("Choose datasets, algorithms and an ε grid in the sidebar, then **Run sweep**. A preset fills in a "
            "paper's setting (Priv-PC's Figure 1 on one network is 315 runs at n = 100,000: most of a minute on two "
            "cores, longer on a busy machine); once it runs, the progress bar estimates the time left from the runs "
            "done so far.", icon=":material/tune:")
    st.stop()

from cgdcore.experiments import summarise  # noqa: E402
from cgdcore.experiments.presets import paper_points  # noqa: E402
from cgdcore.experiments.results import to_frame  # noqa: E402

table = store["table"] if store["table"] is not None else to_frame(rows, [c.key for c in configs])
if store.get("seconds") and have == len(configs):
    st.success(f"{len(configs):,} runs finished in {store['seconds']:.1f} s (cached: the same parameters show at "
               "once, in any session).", icon=":material/check_circle:")
if have < len(configs):
    st.warning(f"Showing {len(table):,} of {len(configs):,} runs: the sweep was interrupted. **Resume sweep** "
               "computes only the missing ones.", icon=":material/pause_circle:")
errors = table[table["error"].notna()]
if len(errors):
    st.warning(f"{len(errors)} run(s) were rejected and are left out, e.g. {errors.iloc[0]['algorithm']} on "
               f"{errors.iloc[0]['dataset']}: {markdown_literal(errors.iloc[0]['error'])}", icon=":material/warning:")

summary = summarise(table, x=x_axis)
x_label = X_AXES[x_axis]
paper = paper_points(spec)
single_eps = len(spec.epsilons) == 1
x_range = (1.0, 100.0) if clip and x_axis != "epsilon" else None
curve_axes = {"axis_title": X_AXIS_NAMES[x_axis], "x_range": x_range}  # the short name under each panel


def _every_pair() -> dict[str, float]:
    """Each dataset's skeleton F1 of linking every pair, the baseline a private point is read against."""
    from cgdcore.data.registry import load_network
    from cgdcore.metrics import every_pair_f1

    return {ds: every_pair_f1(load_network(ds).adjacency()) for ds in spec.datasets}


every_pair = _every_pair()
no_guarantee = (sorted(set(table.loc[table["error"].isna() & (table["guarantee"] == 0), "algorithm"]))
                if "guarantee" in table.columns else [])
if x_axis == "epsilon_total" and no_guarantee and not single_eps:  # one ε: bars per algorithm, on no ε axis
    st.info(f"{', '.join(no_guarantee)} {'has' if len(no_guarantee) == 1 else 'have'} no privacy guarantee, so "
            f"{'it has' if len(no_guarantee) == 1 else 'they have'} no place on the guaranteed-ε axis and "
            f"{'is' if len(no_guarantee) == 1 else 'are'} not drawn here: choose another x-axis (requested ε, a "
            "realised total or the paper's formula) to see "
            f"{'it' if len(no_guarantee) == 1 else 'them'}.", icon=":material/gpp_maybe:")
if x_axis == "eps_paper" and summary["x"].isna().all():
    st.caption("None of these algorithms has a paper formula of its own; choose another rule.")



def _utility_figure():
    """The chosen utility metric against the chosen ε (bars when the sweep has one ε), with linking every pair."""
    if single_eps:
        return vs.bars_figure(summary, metric, title=f"{vs.METRICS[metric]} at ε = {spec.epsilons[0]:g}",
                              every_pair=every_pair)
    return vs.curves_figure(summary, metric, x_label, **curve_axes, every_pair=every_pair)


def _learned_nothing() -> str:
    """How many private points score no better than linking every pair (the figure's grey dashed line), of those
    the figure draws (a curve leaves out a point without an x on its axis, or outside the clipped range)."""
    from cgdcore.metrics import against_every_pair_f1

    private = summary[summary["epsilon_kind"] != "none"] if single_eps else vs.drawn_points(summary, x_range)
    nothing = sum(against_every_pair_f1(f1, every_pair[ds]) is not None
                  for ds, f1 in zip(private["dataset"], private["skeleton_f1_mean"]) if ds in every_pair)
    one = nothing == 1
    line, kind, verb = ("Grey dash", "bars", "reach" if not one else "reaches") if single_eps else \
        ("Grey dashed line", "points", "lie" if not one else "lies")
    verdict = "each learned something" if nothing == 0 else "it learned nothing" if one else "they learned nothing"
    return (f"{line}: the skeleton F1 of linking every pair, which uses no information. Of {len(private)} private "
            f"{kind}, {nothing} {verb} below it or at most 0.02 above it: {verdict}. ")


def _deltas() -> str:
    """The δ each private algorithm ran at, from the table: compared at the same ε, curves at different δ are not
    equally private (a larger δ lets the composition fit more per release into the same ε), and a δ above 1/n
    protects little."""
    from cgdcore.privacy.ledger import readable
    from ui.privacy import sweep_deltas

    deltas, weak = sweep_deltas(table)
    if not deltas:
        return ""
    if len(set(deltas.values())) == 1:
        said = f"Every private run is at δ = {readable(next(iter(deltas.values())))}"
    else:
        said = ("The private runs are at different δ (" + ", ".join(f"{a} {readable(d)}" for a, d in deltas.items())
                + "): a larger δ lets the composition fit more per release into the same ε, so curves at the same ε "
                  "are not equally private")
    return said + (f". Formally true, but {'; and '.join(weak)}. " if weak else ". ")


def _utility():
    """Utility against ε, each algorithm a line (the dotted ones non-private), beside linking every pair."""
    st.plotly_chart(_utility_figure(), width="stretch", key="tofig_u")
    refs = list(dict.fromkeys(summary.loc[summary["epsilon_kind"] == "none", "algorithm"]))  # drawn as dotted lines
    st.caption((f"Dotted lines: non-private references ({', '.join(refs)}). " if refs and not single_eps else "")
               + ("" if refs else "This sweep has no non-private reference: add pc[ci_test=kendall] to its "
                  "algorithms to see PC without privacy beside the private ones. ")
               + (_learned_nothing() if metric == "skeleton_f1" else "")
               + _deltas()
               + ("Hover a point for its requested ε, "
                  + ("" if x_axis == "epsilon" else f"its {X_AXIS_NAMES[x_axis]}, ")
                  + "its mean ± sd and its number of runs." if not single_eps else
                  "Bars: mean over repetitions, whiskers ± one standard deviation."))


def _paper_drawn(metric: str) -> bool:
    """Whether the figure of ``metric`` shows any of the paper's values (paper_points: only values this sweep can be
    set beside; bars show each, a curve only where this sweep's runs have an x on its axis)."""
    if single_eps:
        return any(q["metric"] == metric for q in paper)
    return bool(vs.paper_positions(summary, paper, metric))


def _tests():
    """CI tests per run, beside Priv-PC's Table 3 where it applies."""
    if single_eps:
        fig = vs.bars_figure(summary, "n_ci_tests", paper=paper, title="CI tests per run")
    else:
        fig = vs.curves_figure(summary, "n_ci_tests", x_label, **curve_axes, paper=paper)
    st.plotly_chart(fig, width="stretch", key="tofig_t")
    if _paper_drawn("n_ci_tests"):
        st.caption("Hatched bars / crosses labelled 'paper': Priv-PC's Table 3 at n = 100,000 (its ε is not stated; "
                   "per-round ε = 1 assumed).")


def _time():
    """Seconds per run, beside Priv-PC's Table 2 where it applies."""
    if single_eps:
        fig = vs.bars_figure(summary, "seconds", paper=paper, log_y=True, title="Seconds per run")
    else:
        fig = vs.curves_figure(summary, "seconds", x_label, **curve_axes, paper=paper, log_y=True)
    st.plotly_chart(fig, width="stretch", key="tofig_s")
    st.caption("Per-run time inside the engine. Runs of a sweep share each dataset's deterministic statistics "
               "(tables, test statistics), so a run that needs a statistic first computes it and later runs read it; "
               "small runs' times are dominated by noise drawing and the machine's load, not by that order." + (
                   " Paper times (Priv-PC Table 2) come from a 32-core server running the authors' code."
                   if _paper_drawn("seconds") else ""))


def _table():
    """Every run of the sweep, its downloads and the commands that reproduce it."""
    st.dataframe(table.drop(columns=["sweep"]), hide_index=True, width="stretch", height=360,
                 column_config={c: st.column_config.NumberColumn(format="%.4g") for c in table.columns
                                if c.startswith("epsilon")})  # an ε bound to four significant digits
    d1, d2, d3 = st.columns(3)
    # a download needs no rerun of the page; each file is written when its button is clicked
    d1.download_button("Table (CSV)", when_clicked(csv_text, table), f"sweep-{spec.key}.csv", "text/csv",
                       key="todl_csv", on_click="ignore")
    d2.download_button("Table (Parquet)", when_clicked(parquet_bytes, table), f"sweep-{spec.key}.parquet",
                       "application/octet-stream", key="todl_pq", on_click="ignore")
    d3.download_button("Utility figure (HTML)",
                       when_clicked(lambda: figure_html(_utility_figure(), "Privacy-utility trade-off")),
                       f"tradeoff-{spec.key}.html", "text/html", key="todl_html", on_click="ignore")
    from cgdcore.experiments import command_for, config_of

    ok = table[table["error"].isna() & (table["epsilon_kind"] != "none")]
    if len(ok):
        row = ok.iloc[len(ok) // 2]
        cmd = command_for(config_of(row, spec))
        if cmd:
            st.markdown(f"**Re-run one row alone** ({row['algorithm']} on {row['dataset']}, ε = {row['epsilon']:g}, "
                        f"rep {row['rep']}; skeleton F1 {row['skeleton_f1']:.3f}):")
            st.code(cmd + " --json", language="bash")
    st.markdown("**The same sweep from the command line** (add `--jobs 2`, or `--backend dask --scheduler "
                "tcp://HOST:8786` for a cluster):")
    st.code(sweep_command(), language="bash")


#: only the open tab is drawn (ui.widgets.lazy_tabs)
TABS = {"Utility vs ε": _utility, "CI tests": _tests, "Run time": _time, "Table and downloads": _table}
lazy_tabs(TABS, key="tradeoff_tab")
