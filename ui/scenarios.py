"""One-click scenarios for stakeholders (the Demo page): each fixes every parameter, runs the
real algorithms, and sums the outcome up in one sentence plus a few comparable panels.

* ``epsilon-cost``: non-private PC, Gauss-PC and Priv-PC with ε as the whole budget (Priv-PC: the round ε its
  filter admits four times per pair of variables; decisions on the z scale), and, beside them, Priv-PC as in the
  paper: ε per round, uncapped, on the p-value scale, with what it can really promise.
* ``local-vs-central``: the same total ε used centrally (Gauss-PC on Kendall and on G, Priv-PC and CURATE, capped at ε) and
  locally (every record randomised column-wise with k-RR at ε per record, then plain PC).
* ``hospitals``: two to five owners (three by default) with skewed shares of the rows run PC together under CKKS secure
  aggregation (exactly the pooled result); each alone, and the pooled data for comparison.
* ``curve``: a small sweep of F1 against ε for the three private families.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from cgdcore import UserError
from cgdcore.metrics import against_every_pair, every_pair_f1

__all__ = ["Scenario", "Panel", "Outcome", "SCENARIOS", "CHOICES", "TOTAL_EPSILON", "TOTAL_EPSILON_MEANS", "run_scenario", "settings_for",
           "scenario_work"]


#: what "total ε" means for the sparse-vector family: one sentence for the Discover page's Budget choice and the
#: Demo's panels, which make the same ``discover(..., epsilon=ε)`` call
TOTAL_EPSILON = ("a hard cap; each round gets the largest ε for which the filter admits a fixed number of rounds per "
                 "pair of variables (SVT-PC one, Priv-PC four).")
TOTAL_EPSILON_MEANS = "Total ε as on Discover: " + TOTAL_EPSILON


@dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    question: str
    settings: dict[str, Any]
    heading_template: str = ""

    def heading(self, settings: dict[str, Any]) -> str:
        """The title with the settings actually used (the button keeps the default title)."""
        return _fill(self.heading_template, settings) if self.heading_template else self.title

    def ask(self, settings: dict[str, Any]) -> str:
        """The question with the settings actually used (``{Owners}`` and the rest, as in the heading)."""
        q = _fill(self.question, settings)
        return q[:1].upper() + q[1:]


def _fill(template: str, settings: dict[str, Any]) -> str:
    """``template`` with the settings, ``{Dataset}`` as a name and ``{Owners}`` in words."""
    names = {"asia": "Asia", "sachs": "Sachs", "child": "Child", "alarm": "Alarm", "insurance": "Insurance"}
    words = {2: "two", 3: "three", 4: "four", 5: "five"}
    return template.format(**{**settings, "Dataset": names.get(settings.get("dataset"), ""),
                              "Owners": words.get(settings.get("owners"), settings.get("owners"))})


SCENARIOS: dict[str, Scenario] = {s.key: s for s in (
    Scenario("epsilon-cost", "What does ε = 1 cost on Sachs?",
             "How much of the true network does private discovery recover, and what can a run really promise?", {"dataset": "sachs", "n": 100_000, "epsilon": 1.0, "seed": 0},
             "What does ε = {epsilon:g} cost on {Dataset}?"),
    Scenario("local-vs-central", "Local vs central privacy on the same data",
             "Same data, same total ε: a trusted curator adding noise to test results (central) against every "
             "person randomising their own record (local).", {"dataset": "sachs", "n": 100_000, "epsilon": 10.0,
                                                              "seed": 0},
             "Local vs central privacy on {Dataset}, ε = {epsilon:g}"),
    Scenario("hospitals", "Encrypted collaboration of three hospitals",
             "{Owners} hospitals with very different numbers of patients learn one network together without "
             "pooling their records.", {"dataset": "asia", "n": 30_000, "owners": 3, "seed": 0},
             "Encrypted collaboration of {Owners} hospitals ({Dataset}, {n:,} patients)"),
    Scenario("curve", "What does each ε buy?",
             "Skeleton F1 of the private algorithms from ε = 0.1 to 100 in total (mean over the runs at each ε), "
             "against PC without privacy.", {"dataset": "sachs", "n": 100_000, "seed": 0, "reps": 3},
             "What does each ε buy on {Dataset}?"),
)}

#: the values every scenario setting may take (the Demo page's widgets offer exactly these)
CHOICES = {"dataset": ("asia", "sachs", "child", "alarm", "insurance"), "n": (10_000, 30_000, 100_000, 300_000),
           "epsilon": (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0), "owners": (2, 3, 4, 5),
           "reps": (1, 2, 3, 5)}


@dataclass
class Panel:
    """One run shown side by side with the others."""

    label: str
    discovery: Any  # cgdcore.discover.Discovery
    epsilon: float | None = None  # the run's total ε (sound accounting), None if not private
    note: str = ""


@dataclass
class Outcome:
    key: str
    headline: str
    panels: list[Panel] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def settings_for(key: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The scenario's settings with ``overrides`` applied and checked against :data:`CHOICES`."""
    if key not in SCENARIOS:
        raise UserError(f"unknown scenario {key!r}; choose one of {', '.join(SCENARIOS)}.")
    out = dict(SCENARIOS[key].settings)
    for k, v in (overrides or {}).items():
        if k not in out:
            continue
        if k in CHOICES and v not in CHOICES[k]:
            raise UserError(f"{k} = {v!r} is not offered in the demo; choose one of "
                            f"{', '.join(map(str, CHOICES[k]))}.")
        out[k] = v
    return out


#: the ledger's rule keys in words
RULE_NAMES = {"basic": "basic", "advanced": "advanced", "gaussian": "Gaussian", "parallel": "parallel"}


def _eps(v: float) -> str:
    """ε for a sentence (cgdcore.privacy.ledger.readable)."""
    from cgdcore.privacy.ledger import readable

    return readable(v)


def _f1(d) -> float:
    return float(d.metrics["skeleton_f1"])


def _adjacencies(d) -> tuple[int, int, int]:
    """(true adjacencies kept, true adjacencies, false adjacencies) of a run's skeleton."""
    import numpy as np

    truth = np.asarray(d.dataset.truth, bool)
    true_adj = truth | truth.T
    learned = np.asarray(d.result.cpdag, bool)
    learned = learned | learned.T
    return int((learned & true_adj).sum() // 2), int(true_adj.sum() // 2), int((learned & ~true_adj).sum() // 2)


def _what_it_kept(d) -> str:
    kept, total, false = _adjacencies(d)
    if d.result.stopped_early:
        return (f"the budget ran out after {d.privacy.releases} noisy releases and every pair it had not tested "
                f"stayed linked ({kept} of the {total} true connections and {false} false ones)")
    return f"it kept {kept} of the {total} true connections and {false} false ones"


def _verdict(d) -> str:
    """What a private F1 means next to the every-pair baseline (:func:`cgdcore.metrics.against_every_pair`)."""
    how = against_every_pair(_f1(d), d.dataset.truth)
    return f" — {how} linking every pair" if how else ""


def _epsilon_cost(s, progress) -> Outcome:
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    ds = load_dataset(s["dataset"], n=s["n"], seed=0)
    eps = float(s["epsilon"])
    base, gauss, capped, per_round = (discover(ds, **c) for c in _discover_calls("epsilon-cost", s))
    tot = float(per_round.privacy.epsilon)
    used = float(per_round.privacy.used_epsilon)
    trivial = every_pair_f1(ds.truth)
    headline = (f"With ε = {eps:g} as the whole budget, Gauss-PC reaches skeleton F1 {_f1(gauss):.2f}"
                f"{_verdict(gauss)} (linking every pair: {trivial:.2f}; PC without privacy: {_f1(base):.2f}): "
                f"{_what_it_kept(gauss)}. Priv-PC within the same ε and δ reaches {_f1(capped):.2f}"
                f"{_verdict(capped)}. The paper's way — ε = {eps:g} on every round, no cap, p-values — gives "
                f"Priv-PC F1 {_f1(per_round):.2f}, but all that run can promise is ε = {_eps(tot)}: its rounds composed "
                f"over the most rounds any run on data of this size could make (this one happened to use {_eps(used)}, a number that "
                "depends on the data and guarantees nothing).")
    return Outcome("epsilon-cost", headline, [
        Panel("No privacy (PC)", base, None, f"Kendall test, α = {base.params['alpha']:g} as Priv-PC"),
        Panel(f"Gauss-PC, total ε = {eps:g}", gauss, float(gauss.privacy.epsilon),
              "one Gaussian-noised release per edge and order, composed in zCDP"),
        Panel(f"Priv-PC, total ε = {eps:g}", capped, float(capped.privacy.epsilon),
              f"{TOTAL_EPSILON_MEANS} Here rounds of ε = {capped.params['round_epsilon']:.3g}, decisions on the z "
              "scale."),
        Panel(f"As in paper: Priv-PC, per-round ε = {eps:g}", per_round, tot,
              f"{per_round.privacy.releases} releases, p-value scale; guarantee by "
              f"{RULE_NAMES.get(per_round.privacy.rule, '')} composition at the most rounds possible"),
    ])


def _local_vs_central(s, progress) -> Outcome:
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover

    ds = load_dataset(s["dataset"], n=s["n"], seed=0)
    eps = float(s["epsilon"])
    gauss, gauss_g, central, curate, local = (discover(ds, **c) for c in _discover_calls("local-vs-central", s))
    best = max((gauss, gauss_g, central, curate), key=_f1)
    trivial = every_pair_f1(ds.truth)

    def said(name, d):
        tail = (" — it stopped before testing and kept every pair"
                if d.privacy.releases == 0 and d.privacy.budget is not None else _verdict(d))
        return f"{name} {_f1(d):.2f}{tail}"

    if max(_f1(best), _f1(local)) < trivial + 0.1:
        verdict = "At this ε neither does much better than linking every pair: try a larger ε."
    elif _f1(best) > _f1(local) + 0.02:
        verdict = ("Here the curator's noise costs less accuracy — noising a few hundred test results is cheaper than "
                   "noising every record — but everyone must trust the curator with raw records.")
    elif _f1(local) > _f1(best) + 0.02:
        verdict = ("Here local wins: at this ε each randomised record is almost the true one. A central algorithm "
                   "that used the budget well would do at least as well (the curator could run the same randomiser "
                   "itself), so this is a cost of the central algorithms' statistics and plans, not of central "
                   "privacy.")
    else:
        verdict = "Here the two are level; local privacy needs no trusted party."
    headline = (f"Skeleton F1 at the same ε = {eps:g} (linking every pair scores {trivial:.2f}): central "
                f"{said('Gauss-PC (Kendall)', gauss)}, {said('Gauss-PC (G-test)', gauss_g)}, {said('Priv-PC', central)}, "
                f"{said('CURATE', curate)}; local "
                f"{said('k-RR + PC', local)}. {verdict}")
    return Outcome("local-vs-central", headline, [
        Panel(f"Central: Gauss-PC (Kendall), total ε = {eps:g}", gauss, float(gauss.privacy.epsilon),
              "the curator sees the data; one noisy release per edge and order"),
        Panel(f"Central: Gauss-PC (G-test), total ε = {eps:g}", gauss_g, float(gauss_g.privacy.epsilon),
              "the same, on the G statistic: sees any dependence, at a larger sensitivity (≈ 4(ln n + 1))"),
        Panel(f"Central: Priv-PC, total ε = {eps:g}", central, float(central.privacy.epsilon),
              "the curator sees the data; only test results are noisy. " + TOTAL_EPSILON_MEANS),
        Panel(f"Central: CURATE, total ε = {eps:g}", curate, float(curate.privacy.epsilon),
              "per-order budgets planned by CURATE's optimiser"),
        Panel(f"Local: k-RR on every column, ε = {eps:g} per record", local, float(local.privacy.epsilon),
              "the analyst only ever sees randomised records"),
    ])


def _key_holder_learns(owners: int, holder: int) -> str:
    """What the key holder, itself one of the hospitals, learns from the summed counts it decrypts."""
    others = ("the other hospital's exact counts" if owners == 2 else
              f"the other {owners - 1} hospitals' counts summed together")
    return (f"But the key holder is one of them (Hospital {holder}): it decrypts the summed counts of each test, and "
            f"taking its own counts away it learns {others}; without DP noise, a small count can point to a patient.")


def _hospitals(s, progress) -> Outcome:
    from cgdcore.data import load_dataset
    from cgdcore.discover import discover
    from cgdcore.fhe.run import federate

    ds = load_dataset(s["dataset"], n=s["n"], seed=0)
    owners, seed = int(s["owners"]), int(s["seed"])
    common = {"owners": owners, "split": "skewed", "split_seed": seed}
    together = discover(ds, algo="fhe-pc", options={**common, "mode": "aggregate"})
    # the pooled reference runs the same batched PC (max-p separating sets per level) on the pooled counts
    pooled = discover(ds, algo="fhe-pc", options={**common, "mode": "plaintext"})
    alone = []
    for o in federate(ds, owners=owners, split="skewed", seed=seed):
        part = replace(ds, data=o.codes, name=f"{ds.name}: hospital {o.index + 1}", notes=())
        # the same batched PC on this hospital's rows only (its counts, split in two, summed in the clear)
        alone.append(Panel(f"Hospital {o.index + 1} alone ({o.n:,} patients)",
                           discover(part, algo="fhe-pc", options={"owners": 2, "mode": "plaintext"})))
    fhe = together.fhe.summary
    worst = min(alone, key=lambda p: _f1(p.discovery))
    best = max(alone, key=lambda p: _f1(p.discovery))
    same = fhe["shd_vs_plaintext"] == 0
    if _f1(best.discovery) >= _f1(together) - 1e-9:
        gain = (f"Here {best.label.split(' alone')[0]} alone already does as well ({_f1(best.discovery):.2f}); the "
                f"gain is for the others — {worst.label.split(' alone')[0]} alone reaches {_f1(worst.discovery):.2f}.")
    else:
        gain = (f"Alone, the hospitals reach {', '.join(f'{_f1(p.discovery):.2f}' for p in alone)} with the same "
                "algorithm.")
    headline = (f"Together, under encryption, the {owners} hospitals learn a network with skeleton F1 {_f1(together):.2f}"
                f" — {'exactly' if same else 'almost'} what pooling every record would give ({_f1(pooled):.2f}) — "
                "without pooling their records: the server sees only ciphertexts. "
                f"{_key_holder_learns(owners, together.params['key_holder'])} {gain}")
    return Outcome("hospitals", headline,
                   [Panel("Together, encrypted (secure aggregation)", together, None, f"{fhe['seconds']['total']:.2f} s, CI decisions agree with pooled "
                                          f"plaintext on {fhe['agreement']:.0%}"),
                    Panel("Pooled, no encryption (what they avoid)", pooled, None,
                          "the same PC on the pooled counts, in the clear")] + alone,
                   {"fhe": fhe})


CURVE_NAMES = {"pc[ci_test=kendall]": "PC", "gauss-pc": "Gauss-PC", "gauss-pc[ci_test=g2]": "Gauss-PC (G)",
               "priv-pc": "Priv-PC", "curate": "CURATE",
               "pc+krr-cwise": "local k-RR + PC"}


def curve_spec(s):
    """The sweep of the ``curve`` scenario with settings ``s``."""
    from cgdcore.experiments import SweepSpec

    return SweepSpec(datasets=(s["dataset"],), algorithms=tuple(CURVE_NAMES),
                     epsilons=(0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0), n=(s["n"],), reps=int(s["reps"]),
                     seed=int(s["seed"]), budget="total")


def _curve(s, progress) -> Outcome:
    from cgdcore.experiments import run_sweep, summarise

    spec = curve_spec(s)
    table = run_sweep(spec, progress=progress)
    summary = summarise(table)
    from cgdcore.data import load_dataset

    trivial = every_pair_f1(load_dataset(s["dataset"], n=s["n"], seed=0).truth)
    private = summary[summary["epsilon_kind"] != "none"]
    base = float(summary[summary["epsilon_kind"] == "none"]["skeleton_f1_mean"].iloc[0])
    top = max(spec.epsilons)
    at_top = private[private["epsilon"] == top].set_index("algorithm")["skeleton_f1_mean"]
    useful = private[private["skeleton_f1_mean"] >= trivial + 0.5 * (base - trivial)]
    first = useful.sort_values("epsilon").groupby("algorithm")["epsilon"].first()
    headline = (f"PC without privacy scores skeleton F1 {base:.2f}; linking every pair scores {trivial:.2f}. "
                f"At total ε = {top:g}: " + ", ".join(f"{CURVE_NAMES[a]} {v:.2f}" for a, v in at_top.items())
                + ". " + ("Halfway from 'every pair' to PC: " + ", ".join(
                    f"{CURVE_NAMES[a]} from ε = {e:g}" for a, e in first.items()) + "." if len(first) else
                    "No private method gets halfway from 'every pair' to PC on this grid."))
    return Outcome("curve", headline, [], {"table": table, "summary": summary, "spec": spec, "every_pair": trivial})


def curve_guarantees(table, seed: int) -> str:
    """What the curve's ε means: each private method's δ, the ε and δ that protect little by the criteria of
    :func:`cgdcore.privacy.ledger.weak_reasons`, and that the sweep's fixed noise seeds make its runs demonstrations."""
    from cgdcore.privacy.ledger import weak_reasons
    from ui.privacy import sweep_deltas

    runs = table[(table["epsilon_kind"] != "none") & table["error"].isna()]
    n = int(runs["n"].max())
    deltas, weak_deltas = sweep_deltas(table, CURVE_NAMES.get)
    reasons = []
    weak_eps = sorted(e for e in runs["epsilon"].unique() if weak_reasons(float(e), None, n))
    if weak_eps:
        more = ", ".join(f"{e:g}" for e in weak_eps[1:])
        reasons.append(weak_reasons(float(weak_eps[0]), None, n)[0] + (f" (at {more} less still)" if more else ""))
    reasons += weak_deltas
    return ("Every private method is (ε, δ)-differentially private at the ε on the x-axis, at δ = "
            + ", ".join(f"{_eps(d)} ({a})" for a, d in deltas.items())
            + (f". Formally true, but {'; and '.join(reasons)}" if reasons else "")
            + f". That holds with fresh noise: these runs use fixed noise seeds (from seed {seed}), so they are "
              "reproducible demonstrations, not private releases")


def local_dip(table):
    """Where local k-RR + PC scores a lower skeleton F1 (by over 0.05) at a larger ε with lower precision and no lower
    recall — extra edges, which noisy conditioning variables cause (Scheines & Ramsey 2016) — as ((ε, precision,
    recall) at the smaller ε, the same at the larger), means over the sweep's runs; the first such pair, or None."""
    runs = table[(table["algorithm"] == "pc+krr-cwise") & table["error"].isna()]
    m = runs.groupby("epsilon")[["skeleton_f1", "skeleton_precision", "skeleton_recall"]].mean().sort_index()
    for i, lo in enumerate(m.index):
        for hi in m.index[i + 1:]:
            a, b = m.loc[lo], m.loc[hi]
            if (b["skeleton_f1"] < a["skeleton_f1"] - 0.05 and b["skeleton_precision"] < a["skeleton_precision"]
                    and b["skeleton_recall"] >= a["skeleton_recall"]):
                return ((float(lo), float(a["skeleton_precision"]), float(a["skeleton_recall"])),
                        (float(hi), float(b["skeleton_precision"]), float(b["skeleton_recall"])))
    return None


_RUNNERS: dict[str, Callable[[dict, Any], Outcome]] = {
    "epsilon-cost": _epsilon_cost, "local-vs-central": _local_vs_central, "hospitals": _hospitals, "curve": _curve}


def _discover_calls(key: str, s: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``discover`` calls scenario ``key`` makes with settings ``s`` (their parameters, as ``command_line`` takes
    them); the hospitals' separate runs on their own rows add up to one run on all of them."""
    from cgdcore.algorithms import PAPER_DELTA, get

    eps, seed = float(s.get("epsilon", 1.0)), s["seed"]
    # runs compared at the same ε are at the same δ, each algorithm's default; "as in paper" keeps the paper's 10⁻³
    if key == "epsilon-cost":  # the order _epsilon_cost reads them in: PC with Priv-PC's test and α, Gauss-PC,
        # Priv-PC within ε, Priv-PC as in the paper
        return [{"algo": "pc", "ci_test": "kendall", "alpha": get("priv-pc").alpha},
                {"algo": "gauss-pc", "epsilon": eps, "seed": seed},
                {"algo": "priv-pc", "epsilon": eps, "seed": seed},
                {"algo": "priv-pc", "round_epsilon": eps, "delta": PAPER_DELTA, "seed": seed,
                 "options": {"scale": "p"}}]
    if key == "local-vs-central":  # the order _local_vs_central reads them in
        return [{"algo": "gauss-pc", "epsilon": eps, "seed": seed},
                {"algo": "gauss-pc", "ci_test": "g2", "epsilon": eps, "seed": seed},
                {"algo": "priv-pc", "epsilon": eps, "seed": seed},
                {"algo": "curate", "epsilon": eps, "seed": seed}] + [
            {"algo": "pc", "ldp": {"mechanism": "krr-cwise", "epsilon": eps}, "seed": seed}]
    if key == "hospitals":
        common = {"owners": int(s["owners"]), "split": "skewed", "split_seed": int(seed)}
        return [{"algo": "fhe-pc", "options": {**common, "mode": m}}
                for m in ("aggregate", "plaintext", "plaintext")]
    return []


def scenario_work(key: str, overrides: dict[str, Any] | None = None) -> tuple[float, list[str | None]]:
    """Estimated row-passes of scenario ``key`` (cgdcore.workload, summed over its runs; the curve's sweep as
    cgdcore.experiments.cost counts it) and the commands that make the same runs."""
    from cgdcore.cli import command_line
    from cgdcore.experiments.cost import dataset_shape, sweep_units
    from cgdcore.workload import work_units

    s = settings_for(key, overrides)
    if key == "curve":
        spec = curve_spec(s)
        return sweep_units(spec), [
            f"python -m cgdcore sweep --dataset {s['dataset']} --n {s['n']} --algos '{','.join(spec.algorithms)}' "
            f"--epsilons {','.join(f'{e:g}' for e in spec.epsilons)} --reps {spec.reps} --seed {spec.seed} "
            "--budget total --out results.csv"]
    n, d = dataset_shape(s["dataset"], s["n"])
    calls = _discover_calls(key, s)
    units = sum(work_units(c["algo"], n, d, options=c.get("options"), ldp=c.get("ldp")) for c in calls)
    return units, [command_line(s["dataset"], s["n"], c) for c in calls]


def run_scenario(key: str, overrides: dict[str, Any] | None = None, progress=None) -> Outcome:
    """Run scenario ``key`` with its settings (``overrides`` applied); ``progress`` is passed to the
    long parts (the encrypted run's messages, the sweep's rows)."""
    return _RUNNERS[key](settings_for(key, overrides), progress)
