"""Score: NOTEARS, DP-NOTEARS and CURATE's per-iteration budget schedules."""
import streamlit as st

from cgdcore.discover import algo_label

from cgdcore.data import list_datasets
from cgdcore.data.registry import OPTION_CHOICES
from cgdcore.metrics import CONVENTIONS
from cgdcore.privacy.ledger import readable
from ui.privacy import accounting_table, filter_state, fmt_eps, guarantee_message, noise_seed_input, status_legend
from ui.common import checked_url_settings, url_accepts_names, explain, load_dataset, route_through_app, run_discovery, user_errors
from ui.downloads import download_row, ledger_table
from ui.links import SCORE_ALGOS
from ui.widgets import lazy_tabs, option_input

route_through_app()

URL = {"bind": "query-params"}

st.title("Score-based discovery")
st.caption("Fit a linear structural equation model under a smooth acyclicity constraint (NOTEARS), privately by "
           "a noisy release of the data's moments (DP-NOTEARS) or noisy gradients (as in NOLEAKS), or with CURATE's "
           "per-iteration budget schedules.")

explain(
    "What am I looking at?",
    """
**NOTEARS** (Zheng et al. 2018) looks for a weighted adjacency matrix W whose linear model X ≈ XW fits the data,
with an L1 penalty for sparsity and the constraint h(W) = 0, which holds exactly when W has no directed cycle.
An augmented Lagrangian turns the constraint into a penalty that grows until the graph is acyclic; edges with
|w| below a threshold declared in advance (0.3) are dropped.

**DP-NOTEARS** needs the data only through the loss, and the least-squares loss of a linear model depends on
the data only through its means and second moments. By default it releases those once — every row lies in the
public box of its columns' ranges, so one person moves each moment by a bounded amount — with Gaussian noise
calibrated to that sensitivity, sets every dependence within 2 standard errors of zero to zero (the noise could
have made it), and then runs NOTEARS on the noisy covariance: the optimiser is
post-processing, so it can run to convergence and a large ε gives NOTEARS's own graph. **As in NOLEAKS**
(release = gradient) it instead releases clipped, noisy gradients, each row's gradient clipped entry-wise to
[−s, s] (one person moves the average by at most 2s/n per entry). The least-squares gradient is linear in the
second moments, so the releases are spent at two public points (W = 0 and a cyclic shift, half the budget each).
The data are centred at the middle of their public ranges, not at their own means, so the gradients describe the
moments about that public centre; a share of the budget (1/(1 + √(d − 1)) of ρ, a public rule) buys one noisy
release of the column means, which re-centres the fitted moments into a covariance. Dependences the noise could
have made (within 2 standard errors of zero) are set to zero, and NOTEARS runs on the rest — post-processing,
which reaches NOTEARS's own graph as ε grows; a run whose fit kept no dependence says it learned nothing. NOLEAKS
instead follows its optimiser's path with a noisy gradient per step; that path (Adam with a fixed step inside the
augmented Lagrangian) is what the CLI runs when given `lr` or `outer`, and with exact gradients it stops short of
NOTEARS. **CURATE** (score-based) gives later iterations a different budget
ε_k: additive, exponential or multiplicative schedules, with the number of iterations from its Lemma 2; we add
a geometric schedule that really increases, because the paper's multiplicative one *decreases* when ε0 < 1.

The threshold is never chosen with the truth; the weights heatmap shows what a different threshold would keep.
""",
    latex=[r"\min_W \tfrac{1}{2n}\|X - XW\|_F^2 + \lambda\|W\|_1 \ \ \text{s.t.}\ \ "
           r"h(W) = \mathrm{tr}\,e^{W\circ W} - d = 0",
           r"\hat\Sigma = \tfrac1n X^\top X - \bar x\bar x^\top + \mathcal N(0,\sigma^2),\quad "
           r"\Delta_2 = \tfrac1n\sqrt{\textstyle\sum_j 4B_j^2 + \sum_j B_j^4 + \sum_{j<k} 4B_j^2B_k^2}",
           r"\tilde g = \frac1n\sum_i \mathrm{clip}_s\!\big(-x_i^\top(x_i - x_iW)\big) + \mathcal N(0,\sigma^2),\quad "
           r"\Delta_2 = \frac{2s\sqrt{d(d-1)}}{n}",
           r"\epsilon_i^{\text{add}} = \epsilon_0(1+\tfrac iI),\quad \epsilon_i^{\exp} = \epsilon_0 e^{i/I},\quad "
           r"\epsilon_i^{\text{mul}} = \epsilon_0^{1+i/I}"],
)

INFOS = {i.name: i for i in list_datasets() if i.truth}
NAMES = list(INFOS)

with checked_url_settings(labels={"salgo": algo_label}), st.sidebar:
    st.header("Data")
    name = st.selectbox("Dataset", NAMES, index=NAMES.index("synthetic") if "synthetic" in NAMES else 0, key="sds",
                        help="Continuous data suit the linear model; discrete networks run on standardised codes.",
                        **URL)
    info = INFOS[name]
    st.caption(f"{info.kind}, {info.n_vars} variables — {info.description}")
    opts = {}
    for opt, default in info.options.items():
        choices = OPTION_CHOICES.get(opt)
        if choices:
            opts[opt] = st.selectbox(opt.replace("_", " "), choices, index=list(choices).index(default),
                                     key=f"sopt_{opt}", **URL)
        else:
            opts[opt] = int(st.number_input(opt.replace("_", " "), min_value=0 if "seed" in opt else 1,
                                            max_value=60 if opt == "d" else 200, value=int(default), step=1,
                                            key=f"sopt_{opt}", **URL))
    changed = {k: v for k, v in opts.items() if str(v) != str(info.options[k])}
    spec = name + (":" + ",".join(f"{k}={v}" for k, v in changed.items()) if changed else "")
    if info.n_rows is None:  # 20,000 rows by default: at 2,000, DP-NOTEARS's released covariance kept no
        # dependence up to ε = 10, so the page's default private run learned nothing (NOTEARS takes < 1 CPU-s here)
        n = int(st.number_input("Rows (n)", min_value=50, max_value=200_000, value=20_000, step=1000, key="sn",
                                **URL))
    else:
        n = int(st.number_input(f"Rows (≤ {info.n_rows:,})", min_value=50, max_value=int(info.n_rows),
                                value=min(int(info.n_rows), 7466), step=100, key="sn", **URL))
    seed = int(st.number_input("Data seed", min_value=0, max_value=2**31 - 1, value=0, key="sseed", **URL))

    st.header("Algorithm")
    url_accepts_names("salgo", SCORE_ALGOS, algo_label)  # ?salgo=noleaks still works
    algo = st.radio("Algorithm", SCORE_ALGOS, key="salgo", format_func=algo_label, **URL)
    lambda1 = option_input("lambda1", widget_key="lam", label="L1 penalty λ", hi=10.0, step=0.05)
    w_thr = option_input("w_threshold", widget_key="wthr", label="Edge threshold |w| ≥", hi=5.0, step=0.05,
                         help="Declared before the run (never tuned on the truth).")
    options = {"lambda1": lambda1, "w_threshold": w_thr}
    params = {"algo": algo}
    draw = 0
    if algo != "notears":
        params["epsilon"] = float(st.number_input("Total budget ε", min_value=0.001, max_value=1e6, value=1.0,
                                                  step=0.5, format="%g", key="seps", **URL))
        params["delta"] = st.select_slider("δ", options=[1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3], value=1e-5,
                                           key="sdelta", **URL)
        params["seed"], draw = noise_seed_input("snseed")
        release = "gradient"
        if algo == "noleaks":
            release = option_input("release", widget_key="srel", label="Release",
                                   help="covariance: the means and second moments once, with Gaussian noise; NOTEARS "
                                        "then runs on them as post-processing, so a large ε gives NOTEARS's own graph. "
                                        "gradient (as in NOLEAKS): clipped, noisy gradients at two public points and "
                                        "the column means once, then NOTEARS on the covariance they describe.")
            options["release"] = release
        if release == "gradient":
            options["clip"] = option_input("clip", widget_key="sclip", label="Per-sample clip s", lo=0.01, hi=1e4,
                                           step=0.5)
        if algo == "noleaks" and release == "gradient":
            options["iterations"] = option_input("iterations", widget_key="siter", label="Gradient releases I",
                                                 hi=20_000, step=50)
        elif algo == "curate-score":
            options["schedule"] = option_input("schedule", widget_key="ssched", label="Schedule")
            if not st.toggle("ε0 by the public rule", value=True, key="sauto0",
                             help="The largest ε0 for which Lemma 2 plans 200 iterations within the total, so the "
                                  "plan has as many steps at every budget (a step whose noise the sampler cannot "
                                  "draw is left out: the run's notes say how many are made). Off: give ε0 yourself, "
                                  "as in the paper.", **URL):
                options["eps0"] = float(st.number_input("Initial budget ε0", min_value=1e-4, max_value=1e4,
                                                        value=0.01, step=0.01, format="%g", key="seps0", **URL))

with user_errors():
    with st.spinner("Preparing data…"):
        ds = load_dataset(spec, n if info.n_rows is None else (n if n < info.n_rows else None), seed)
    key = ("score", spec, n, seed, tuple(sorted(params.items())), tuple(sorted(options.items())), draw)
    with st.status(f"Running {algo_label(algo)}…", expanded=False) as status:
        res = run_discovery(key, ds, options=options, **params)
        status.update(label=f"{algo_label(algo)} finished in {res.seconds:.2f} s", state="complete")
st.session_state["score_result"] = res

from cgdcore import viz  # noqa: E402
from cgdcore.viz import score as viz_score  # noqa: E402

names = list(res.variables)
m = res.metrics
pv = res.privacy
cols = st.columns(7 if pv else 6)
cols[0].metric("Skeleton F1", f"{m['skeleton_f1']:.3f}", help=CONVENTIONS["skeleton"])
cols[1].metric("Arc F1", f"{m['arc_f1']:.3f}", help=CONVENTIONS["arc_f1"])
cols[2].metric("SHD", f"{m['shd']}", help=CONVENTIONS["shd"])
cols[3].metric("Edges kept", int(res.cpdag.sum()))
if pv:
    cols[4].metric("Guaranteed ε", fmt_eps(pv.epsilon) if pv.guarantee else "none",
                   help="The run's differential-privacy guarantee at the δ beside it, fixed before it started."
                   if pv.guarantee else f"No guarantee: {pv.guarantee_note}")
    cols[5].metric("δ", readable(pv.delta))
    cols[6].metric("Releases", f"{pv.releases:,}")
    guarantee_message(pv, res.dataset.n)  # the statement, in amber when it protects little, and a fixed seed
else:
    cols[4].metric("Run time", f"{res.seconds:.2f} s")
    cols[5].metric("Outer iterations", len(res.score.trace))
if res.result.stopped_early:
    st.warning(f"Stopped early: {res.result.stop_reason}.", icon=":material/savings:")
for note in res.notes:
    if note.startswith("this run learned nothing"):  # as Discover says it: a warning, not a side note
        st.warning(note[0].upper() + note[1:] + ".", icon=":material/block:")
    else:
        st.caption(f":material/info: {note}")

gfig = viz.graph_figure(res.cpdag, res.dataset.truth, names, title_learned=f"{algo_label(algo)}: thresholded W")
st.plotly_chart(gfig, key="sgraph", width="stretch")


def _weights():
    """The learned weight matrix, and the threshold that makes it a graph."""
    st.plotly_chart(viz_score.weights_figure(res.score.W, res.dataset.truth, names, w_thr), key="sweights",
                    width="stretch")
    st.caption(f"Red: positive weights, blue: negative. Entries with |w| ≥ {w_thr:g} are kept as edges i → j.")


def _convergence():
    """The optimiser's trace."""
    st.plotly_chart(viz_score.convergence_figure(res.score.trace, pv is not None), key="sconv", width="stretch")


def _schedules():
    """The per-iteration ε schedules fitted to this run's total (CURATE's Lemma 2)."""
    e_total = params.get("epsilon", 1.0)
    e0 = options.get("eps0") or (res.privacy.eps0 if res.privacy else None) or 0.01
    left, right = st.columns(2)
    left.plotly_chart(viz_score.schedules_figure(e_total, min(e0, e_total)), key="ssched_fig", width="stretch")
    right.plotly_chart(viz_score.iterations_figure(min(e0, e_total)), key="siter_fig", width="stretch")
    st.caption("Each schedule is fitted to the total: I from Lemma 2, floored, then reduced until Σε_k ≤ ε_total. "
               "With ε0 < 1 the paper's multiplicative 'increment' ε0^(1+k/I) shrinks towards ε0², which is why it "
               "affords the most iterations; the geometric schedule ε0·1.05^k really gives later iterations more.")


def _ledger():
    """Every release and each total (the guarantee's statement is above the tabs)."""
    filter_state(pv)
    accounting_table(pv.accounting, "sledger")
    st.caption("Every release (the moments, the column means, or each gradient) is a discrete Gaussian mechanism, "
               "so the budget filter composes them exactly in zCDP (ρ adds up); basic composition of each "
               "release's (ε_k, δ_k) is what CURATE's Lemma 2 plans with, shown for comparison. " + status_legend())


#: only the open tab is drawn (ui.widgets.lazy_tabs)
TABS = {"Weights": _weights, "Convergence": _convergence, "Schedules": _schedules}
if pv:
    TABS["Privacy ledger"] = _ledger
lazy_tabs(TABS, key="score_tab")

st.subheader("Downloads and the command that reproduces this run")
import pandas as pd  # noqa: E402

from cgdcore.cli import command_line  # noqa: E402

W = pd.DataFrame(res.score.W, columns=list(names))
W.insert(0, "from \\ to", list(names))
items = [("Weights W (CSV)", "csv", W, "weights.csv"),
         ("Optimiser trace (CSV)", "csv", pd.DataFrame(res.score.trace), "trace.csv"),
         ("Result (JSON)", "json", res.to_json(), "result.json"),
         ("Graph figure (HTML)", "html", gfig, "graph.html")]
if pv and res.ledger is not None:
    items.insert(2, ("Every release (CSV)", "csv", ledger_table(res.ledger), "ledger.csv"))
download_row(items, "sdl")
cmd = command_line(spec, n if info.n_rows is None or n < info.n_rows else None,
                   {**params, "options": options}, data_seed=seed if info.n_rows is None else None)
st.code(cmd or "(an option of this run has no command-line flag)", language="bash")
if pv and params.get("seed") is None:
    st.caption("The noise was drawn from fresh entropy and is not reported, so the command reruns the same settings "
               "with new noise; fix a noise seed in the sidebar for a run anyone can reproduce.")
