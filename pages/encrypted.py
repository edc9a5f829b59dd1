"""Encrypted federated PC: owners' counts under CKKS, the χ²/G² circuit on the server, and the DP variant."""
import threading

import streamlit as st

from cgdcore.cancel import checkpoint
from cgdcore.fhe.run import comparison, no_dp_note, same_decisions_note
from ui.privacy import accounting_table, guarantee_message, noise_seed_input, status_legend
from ui.downloads import download_row, ledger_table
from ui.widgets import lazy_tabs
from ui.common import (check_work, checked_url_settings, explain, load_dataset, route_through_app, run_stored,
                       session_id, user_errors)

route_through_app()

URL = {"bind": "query-params"}
NETWORKS = ["asia", "sachs", "cancer", "survey", "child", "alarm", "insurance", "water", "win95pts", "hepar2"]
MODE_HELP = {
    "warm": "encrypted statistic, warm start (owners send an encrypted first guess; 4 Newton steps)",
    "paper": "encrypted statistic as in the paper (10 Newton steps from r0 = 1, Taylor log) — slow, ~5 GB",
    "aggregate": "secure aggregation: encrypted counts added, the key holder computes exactly",
    "emulate": "numpy emulation of the paper's approximations (no encryption, instant)",
    "plaintext": "plaintext reference: counts added in the clear",
}
DP_HELP = {"none": "no DP (encryption only)",
           "once": "every owner adds exact discrete Laplace noise to its joint histogram, once (ε in total, against "
                   "every other party)",
           "per-count": "as in paper: noise on every count sent (uncapped: the bound at the most tests is reported)"}


@st.cache_resource
def _one_encrypted_run_at_a_time():
    """SEAL is single-threaded and an encrypted level takes GBs: sessions queue for it."""
    return threading.Lock()


st.title("Encrypted federated PC")
st.caption("Several data owners hold different rows of the same variables. They never pool their data: each counts "
           "its own rows, encrypts the counts under CKKS, and a server that never holds the secret key evaluates "
           "every CI statistic of a PC level on the ciphertexts (Yang et al., 2026).")

explain(
    "What am I looking at?",
    """
**Who holds what.** Each *owner* keeps its rows. One owner, the *key holder*, generates the CKKS keys and gives
everyone else only the public context (public and relinearisation keys). The *server* adds the owners' ciphertexts
and evaluates the statistic; it cannot decrypt (try it: TenSEAL refuses without the secret key). Before sending
the per-cell contributions back, the server adds a random mask to each cell (uniform, width 2^17 at a 40-bit
scale) chosen so that each test's masks sum to zero: the key holder decrypts noise in every slot, and only the sum
over a test's cells, its statistic, is meaningful. It turns that into a p-value, and PC continues in plaintext.
(Secure aggregation is the exception: there the key holder decrypts the pooled contingency tables by design.)

**Why the paper loses accuracy.** CKKS can only add and multiply, so 1/x is computed by Newton–Raphson and log by
a short series. From the public guess r0 = 1 the reciprocal of a small cell has not converged after 10 steps, and
10 steps need 24 multiplicative levels — at 128-bit security that forces a 31-bit scale, whose noise flips further
decisions. *Emulate* shows the approximation error alone; *paper* adds the encryption noise.

**The warm start.** Each owner also sends an encrypted guess of each reciprocal from its own counts; the server
adds the guesses, 4 Newton steps suffice, the circuit fits a 40-bit scale, and decisions agree with plaintext.
For G² it evaluates log r as 2·atanh((r−1)/(r+1)), a series that converges for every ratio (the paper's Taylor
series of log(1+u) diverges once a ratio exceeds 2). A skewed split makes owners' guesses unrepresentative:
the run reports how many slots overshot r0·x ≥ 2, where Newton–Raphson diverges.

**DP variant.** *Once*: every owner adds its share of Laplace noise to its whole joint histogram; the shares are
securely aggregated, so only the noisy total is ever decrypted and every later table is post-processing — one ε.
*Per count* (the paper's): fresh Laplace on every count vector of every test, sent in the clear; its real cost
composes over thousands of releases.
""",
    latex=[r"\chi^2 = \sum_{x,y,z}\frac{(N_{xyz}N_{++z} - N_{x+z}N_{+yz})^2}{N_{x+z}N_{+yz}N_{++z}},\qquad "
           r"G^2 = 2\sum_{x,y,z} N_{xyz}\log\frac{N_{xyz}N_{++z}}{N_{x+z}N_{+yz}}",
           r"r_{t+1} = r_t\,(2 - x\,r_t)\ \ (\text{converges iff } 0 < r_0 x < 2),\qquad "
           r"\log r \approx u - \tfrac{u^2}{2} + \tfrac{u^3}{3}\ (u = r-1)\ \text{ or }\ "
           r"2\left(z + \tfrac{z^3}{3} + \tfrac{z^5}{5}\right),\ z = \tfrac{r-1}{r+1}"],
)

with checked_url_settings(), st.sidebar:
    st.header("Data")
    net = st.selectbox("Network", NETWORKS, key="fnet", **URL)
    n = int(st.number_input("Rows (n)", min_value=100, max_value=200_000, value=10_000, step=1000, key="fn", **URL))
    seed = int(st.number_input("Seed (data, owners' split)", min_value=0, max_value=2**31 - 1, value=0, key="fseed",
                               help="Samples the rows and deals them to the owners (--seed and --split-seed on the "
                                    "command line). A DP variant's noise has its own seed, below.", **URL))
    st.header("Federation")
    owners = int(st.number_input("Data owners", min_value=2, max_value=10, value=3, key="fown", **URL))
    split = st.radio("How rows are split", ["iid", "skewed"], horizontal=True, key="fsplit",
                     help="iid: at random. skewed: for each state of the first variable, owner shares drawn from a "
                          "Dirichlet(0.5) — owners see different mixes.", **URL)
    holder = int(st.number_input("Key holder (owner number)", min_value=1, max_value=owners, value=1, key="fkey"))
    st.header("Protocol")
    dp = st.selectbox("DP variant", list(DP_HELP), key="fdp",
                      help="\n\n".join(f"**{k}**: {v}" for k, v in DP_HELP.items()), **URL)
    if dp == "none":
        mode = st.selectbox("Mode", list(MODE_HELP), key="fmode",
                            help="\n\n".join(f"**{k}**: {v}" for k, v in MODE_HELP.items()), **URL)
        st.caption(MODE_HELP[mode])
        eps = None
        noise_seed, noise_draw = None, 0
    else:
        mode = "aggregate" if dp == "once" else "plaintext"
        st.caption(DP_HELP[dp])
        eps = float(st.number_input("ε" + (" (total)" if dp == "once" else " (per count, as in paper)"),
                                    min_value=0.01, max_value=100.0, value=1.0, step=0.5, format="%g", key="feps",
                                    **URL))
        noise_seed, noise_draw = noise_seed_input("fnseed")
    stat = st.radio("Statistic", ["g2", "chi2"], horizontal=True, key="fstat", help="g2: G² (log-likelihood ratio); "
                    "chi2: Pearson χ²", **URL)
    max_order = int(st.number_input("Maximum order |S|", min_value=0, max_value=5, value=2, key="fmaxo",
                                    help="The paper's tables cover levels 0 and 1; the performance target uses ≤ 2.",
                                    **URL))
    alpha = float(st.select_slider("α", options=[0.01, 0.05, 0.1], value=0.05, key="falpha", **URL))
    with st.expander("Circuit settings"):
        default_it = {"paper": 10, "warm": 4}.get(mode, 10)
        iters = int(st.number_input("Newton–Raphson iterations", min_value=1, max_value=20, value=default_it,
                                    key=f"fit_{mode}"))
        terms = int(st.number_input("Series terms (log)", min_value=1, max_value=8, value=3, key="fterms"))
        series = st.radio("Log series (G²)", ["taylor", "atanh"], index=1 if mode == "warm" else 0, horizontal=True,
                          key=f"fseries_{mode}")
        warm_c = float(st.slider("Warm-start factor c", min_value=0.1, max_value=1.5, value=0.7, step=0.05, key="fc"))
        r0 = float(st.number_input("Public guess r0 (paper: 1)", min_value=0.01, max_value=2.0, value=1.0,
                                   key="fr0"))

import pandas as pd  # noqa: E402

from cgdcore import viz  # noqa: E402
from cgdcore.viz import fhe as viz_fhe  # noqa: E402
from cgdcore.discover import cap_max_order, discover  # noqa: E402
from cgdcore.fhe.paper import paper_row  # noqa: E402

options = {"owners": owners, "split": split, "split_seed": seed, "mode": mode, "nr_iterations": iters, "r0": r0,
           "taylor_terms": terms, "warm_c": warm_c, "log_series": series, "dp": None if dp == "none" else dp,
           "key_holder": holder}
run_seed = noise_seed  # discover()'s seed is the DP noise's only: None is fresh noise (and there is none without DP)
# a fresh-noise run is kept per draw and per session (fresh entropy for each user, never a draw the server shares)
key = ("fhe", net, n, seed, run_seed, stat, alpha, max_order, eps, tuple(sorted(options.items())),
       ("draw", noise_draw)) + ((("session", session_id()),) if dp != "none" and noise_seed is None else ())
heavy = dp == "none" and mode in ("warm", "paper")
if heavy:
    st.info("An encrypted-statistic run takes from ~15 s (warm, Asia) to minutes (paper mode, larger networks) and "
            "several GB of memory; one runs at a time on this server.", icon=":material/timer:")
    go = st.button("Run encrypted PC", type="primary", key="fgo")
    if go:
        st.session_state["fhe_go"] = key
    go = st.session_state.get("fhe_go") == key
else:
    go = True

res = None
if go:
    with user_errors():
        ds = load_dataset(net, n, seed)
        check_work(ds.name, ds.n, ds.d, {"algo": "fhe-pc", "ci_test": stat, "alpha": alpha, "max_order": max_order, "epsilon": eps,
                        "options": options})
        with st.status("Running federated PC…", expanded=heavy) as status:
            line = st.empty()

            def say(msg):
                line.write(msg)

            lock = _one_encrypted_run_at_a_time() if heavy else None
            if lock is not None and not lock.acquire(blocking=False):
                line.write("Waiting for another session's encrypted run to finish…")
                while not lock.acquire(timeout=0.2):
                    checkpoint()  # the user may leave while waiting
            try:
                from cgdcore.fhe.isolated import discover_in_child

                # whatever encrypts runs in a process of its own: key generation cannot be interrupted, a process can
                encrypts = mode in ("warm", "paper", "aggregate") or dp == "once"
                res = run_stored(("encrypted",) + tuple(key), discover_in_child if encrypts else discover,
                                 dataset=ds, algo="fhe-pc", ci_test=stat,
                                 alpha=alpha, max_order=max_order, epsilon=eps, seed=run_seed,
                                 options={**options, "on_message": say})
            finally:
                if lock is not None:
                    lock.release()
            # the protocol's time, as the Time metric and the time chart below count it
            status.update(label=f"Done in {res.fhe.summary['seconds']['total']:.1f} s", state="complete",
                          expanded=False)

if res is None:
    st.caption("Choose the settings and press the button.")
    st.stop()

f = res.fhe.summary
cmp = comparison(f)
rep = res.fhe.report
m = res.metrics or {}
if "note" in cmp:
    st.caption(f"The first two numbers compare this run with plaintext PC on the exact counts: diagnostics "
               f"{cmp['note']}.")
c = st.columns(5)
c[0].metric("CI decisions = plaintext", f"{cmp['agreement']:.1%}", help="Share of every test evaluated that reaches "
            "the same decision (p ≥ α) as the exact statistic on the same pooled counts.")
c[1].metric("SHD vs plaintext graph", "—" if cmp["shd_vs_plaintext"] is None else cmp["shd_vs_plaintext"])
c[2].metric("SHD vs truth", m.get("shd", "—"))
c[3].metric("Time", f"{f['seconds']['total']:.1f} s")
mem = f.get("memory_added_mb")
c[4].metric("Memory the run added", "—" if mem is None else (f"{mem / 1024:.2f} GB" if mem >= 1024 else f"{mem:.0f} MB"),
            help="Measured for this run only: the peak resident memory (RSS) of the process that ran it (all parties "
                 "are simulated in it; an encrypting run has a process of its own) minus its RSS when the run "
                 "started. Memory the process already held is not counted. "
                 "A result shown again from the cache shows the numbers of the run that computed it.")
if dp == "none":
    st.warning(no_dp_note(mode), icon=":material/gpp_bad:")
if same_decisions_note(cmp):
    st.caption(f":material/info: {same_decisions_note(cmp)}")
for note in res.notes:
    if "overshot" in note:
        st.warning(note, icon=":material/warning:")
_order_notes: list = []
cap_max_order(max_order, res.dataset.d, _order_notes)  # a larger maximum order than d - 2 allows: say what ran
for note in _order_notes:
    st.caption(f":material/info: {note}")

st.subheader("Who holds what")
cols = st.columns(3)
b = f["bytes"]
mb = lambda v: f"{v / 1e6:.1f} MB"  # noqa: E731
with cols[0].container(border=True):
    st.markdown(f"**{owners} data owners**  \nrows: {', '.join(f'{r:,}' for r in f['owner_rows'])}")
    if dp != "none" and split == "skewed":  # drawn from the data in this simulation: said, as the JSON says it
        st.caption(":material/info: The skewed split deals the rows of each state of the first variable to the owners, "
                   "so these counts come from the data: not covered by ε.")
    st.caption(f["sees"]["owners"])
    if f["ckks"]:
        st.caption(f"uploaded up to {mb(max(b['upload_per_owner']))} each")
with cols[1].container(border=True):
    st.markdown("**Server** :material/lock: no secret key")
    st.caption(f["sees"]["server"])
    if f["ckks"]:
        st.caption(f"received the public context ({mb(b['public_context'])}) and {f['ciphertexts']} ciphertexts")
with cols[2].container(border=True):
    st.markdown(f"**Key holder** (owner {holder}) :material/key:")
    st.caption(f["sees"]["key holder"])
    if f["ckks"]:
        st.caption(f"decrypted {mb(b['results'])} of results")

names = list(res.variables)


def _graphs():
    """The encrypted run's graph and the plaintext federated run's, against the truth."""
    gt = st.tabs([f"{mode} run vs truth"] + (["plaintext federated PC vs truth"] if "plaintext_cpdag" in rep else []))
    with gt[0]:
        st.plotly_chart(viz.graph_figure(res.cpdag, res.dataset.truth, names, title_learned=f"{mode} run"),
                        key="fg_run", width="stretch")
    if "plaintext_cpdag" in rep:
        with gt[1]:
            st.plotly_chart(viz.graph_figure(rep["plaintext_cpdag"], res.dataset.truth, names,
                                             title_learned="Plaintext federated PC"), key="fg_plain", width="stretch")
    st.caption("Both runs keep, for each removed edge, the separating set with the largest p-value among the "
               "level's batched tests, as the paper does; edge colours compare a graph with the CPDAG of the true DAG (its equivalence class).")


def _agreement():
    """Agreement with plaintext federated PC, level by level (Table III)."""
    prow = paper_row(net, stat) if n >= 1000 else None
    st.plotly_chart(viz_fhe.agreement_figure(cmp["levels"], prow), key="fagree", width="stretch")
    st.dataframe(pd.DataFrame(f["levels"]), hide_index=True)
    st.caption("Agreement counts every test of a level (both sides of every edge), as the paper's Table III does. "
               "max_r0x is a simulation diagnostic (no party can see it): Newton–Raphson diverges where r0·x ≥ 2.")


def _cost():
    """Time per phase, the CKKS parameters and what travelled."""
    st.plotly_chart(viz_fhe.time_figure(f["seconds"]), key="ftime", width="stretch")
    if f["ckks"]:
        st.markdown(f"**CKKS parameters** (valid at 128-bit security — SEAL checks): {f['ckks']}")
        st.dataframe(pd.DataFrame([{"what": "public context (to server and owners)", "size": mb(b["public_context"])},
                                   {"what": "upload per owner (max)", "size": mb(max(b["upload_per_owner"]))},
                                   {"what": "results to the key holder", "size": mb(b["results"])},
                                   {"what": "ciphertexts sent", "size": str(f["ciphertexts"])}]), hide_index=True)
    else:
        st.caption("Nothing was encrypted in this mode.")


def _paper():
    """The paper's numbers for this network beside this run's."""
    prow = paper_row(net, stat)
    if prow is None:
        st.info(f"The paper reports {', '.join(['child', 'insurance', 'water', 'alarm', 'hepar2', 'win95pts'])} "
                "(n = 5,000, 2 owners). Pick one of them to see its numbers beside this run's.", icon=":material/info:")
    else:
        lv = {x["order"]: x["agreement"] for x in cmp["levels"]}
        rows = [{"": "paper (Table III/IV; 10×32-core, 320 GB)", "agreement level 0": prow["level 0"],
                 "agreement level 1": prow["level 1"], "average": prow["average"],
                 "seconds": prow["seconds (χ², encrypted)"]},
                {"": f"this run ({mode}, {owners} owners, n = {n:,}; 2 cores)", "agreement level 0": lv.get(0),
                 "agreement level 1": lv.get(1), "average": cmp["agreement"], "seconds": round(f["seconds"]["total"], 1)}]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        st.caption("The paper's times are for χ²; its consistency is per level of its own run. Table III's "
                   "'average' is not the mean of its two rows (presumably weighted by tests per level).")


def _privacy():
    """What the DP variant's releases promise."""
    pv = res.privacy
    guarantee_message(pv, res.dataset.n)
    accounting_table(pv.accounting, "facc", with_figure=False)
    st.caption("Releases on different owners' rows compose in parallel: each person is in one owner's data. "
               + status_legend())


#: only the open tab is drawn (ui.widgets.lazy_tabs)
TABS = {"Graphs": _graphs, "Agreement per level": _agreement, "Time and size": _cost, "Paper vs this run": _paper}
if res.ledger is not None:
    TABS["Privacy"] = _privacy
lazy_tabs(TABS, key="encrypted_tab")

st.subheader("Downloads and the command that reproduces this run")
items = [("Report (JSON)", "json", res.to_json(), "encrypted_report.json"),
         ("Agreement per level (CSV)", "csv", pd.DataFrame(cmp["levels"]), "agreement_per_level.csv"),
         ("Agreement figure (HTML)", "html", viz_fhe.agreement_figure(cmp["levels"], paper_row(net, stat) if n >= 1000 else None),
          "agreement.html")]
if res.ledger is not None:
    items.append(("Every release (CSV)", "csv", ledger_table(res.ledger), "ledger.csv"))
download_row(items, "fdl")
from cgdcore.cli import command_line  # noqa: E402

st.code(command_line(net, n, {"algo": "fhe-pc", "ci_test": stat, "alpha": alpha, "max_order": max_order,
                              "epsilon": eps, "seed": run_seed, "options": options}, data_seed=seed)
        or "(an option of this run has no command-line flag)", language="bash")
if dp != "none" and noise_seed is None:
    st.caption("The noise was drawn from fresh entropy and is not reported, so the command reruns the same settings "
               "with new noise; fix a noise seed in the sidebar for a run anyone can reproduce.")
