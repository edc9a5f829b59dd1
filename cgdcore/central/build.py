"""From an algorithm name and parameters to its policy, sensitivity and ledger.

What each run can claim is settled here, before it starts: the statistic and its sensitivity (the
proven public-normaliser Kendall statistic by default), the noise (exact discrete Laplace by
default), the composition rule of the filter, and the data-independent worst case an uncapped run
states its guarantee at. Anything without a proof voids the guarantee, visibly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from cgdcore import UserError
from cgdcore.algorithms import PARAMS, REGISTRY
from cgdcore.citests import (KENDALL_PUBLIC_C, curate_p_sensitivity, g2_sensitivity, kendall_p_sensitivity,
                             p_sensitivity, shared_ci_test)
from cgdcore.pc import max_ci_queries
from cgdcore.privacy import noise_generator
from cgdcore.privacy.ledger import Ledger, privpc_code_composition, validate_delta, validate_epsilon
from cgdcore.privacy.mechanisms import DEFAULT_SAMPLER, PLAIN_NOTE, check_sampler

__all__ = ["build_private_policy", "max_reach", "check_sensitivity", "COMPOSITIONS", "round_epsilon_for",
           "round_rule", "ROUNDS_PER_PAIR"]

#: The largest p-value sensitivity a run may use: beyond it the noise swamps any decision
#: (the one-sided p-value lives in [0, ½]).
MAX_P_SENSITIVITY = 0.1
#: Composition rules a central run may fix in advance (cgdcore.privacy.ledger); gauss-pc composes in zCDP.
COMPOSITIONS = ("advanced", "basic")
#: The rule each algorithm's filter uses unless the run picks another.
DEFAULT_RULE = {"gauss-pc": "zcdp"}


PAPER_STATISTIC_NOTE = ("Priv-PC's statistic normalised over the usable strata has no proven sensitivity: one replaced "
                        "row can make a stratum usable or unusable and move the normaliser, so c1/√n is not a bound")
EMPC_NOTE = ("EM-PC chooses each separating set by a noiseless argmax of p-values and its greedy flip-distance "
             "utility can change by more than the assumed 1 between neighbouring datasets")
CURATE_PAPER_NOTE = ("CURATE's 'paper' sensitivity 0.3627/√n is not a valid worst-case bound, so the noise is too "
                     "small for the stated ε")


#: Rounds per pair of variables a capped sparse-vector run is planned for, and the releases that make one round.
#: SVT-PC and EM-PC: one round per deleted edge, at most one per pair. Priv-PC: a round also ends at a sieve false
#: alarm that the examine rejects, and those outnumber the deletions when the sieve's noise is large; four rounds
#: per pair (measured on Child, n = 100,000, ε = 1: F1 0.86 against 0.57 with two; Sachs unchanged, Alarm −0.03
#: to −0.06), each round two releases of ε/2 (sieve, examine).
ROUNDS_PER_PAIR = {"svt-pc": 1, "priv-pc": 4, "em-pc": 1}
RELEASES_PER_ROUND = {"svt-pc": 1, "priv-pc": 2, "em-pc": 1}


def round_epsilon_for(total: float, d: int, delta: float, rule: str = "advanced", algo: str = "svt-pc") -> float:
    """The per-round ε of a capped sparse-vector run given only its total: the largest for which the run's filter
    admits ``ROUNDS_PER_PAIR[algo]`` rounds per pair of variables, each round as the releases it makes."""
    k = RELEASES_PER_ROUND.get(algo, 1)
    releases = k * ROUNDS_PER_PAIR.get(algo, 1) * math.comb(d, 2)
    return k * Ledger(budget=total, delta=delta, rule=rule).largest_uniform(releases, total)


def round_rule(algo: str, d: int) -> str:
    """The round rule in words, for notes and help."""
    r = ROUNDS_PER_PAIR.get(algo, 1)
    return (f"{'one round' if r == 1 else f'{r} rounds'} per pair of variables ({r * math.comb(d, 2)} rounds"
            + ("; false alarms of the sieve end rounds too" if algo == "priv-pc" else "") + ")")


def max_reach(n: int, d: int) -> int:
    """Priv-PC/CURATE reference codes' order cap: max(min(⌊log2 n⌋ − 5, d − 2), 0)."""
    return max(min(int(math.floor(math.log2(max(n, 1)))) - 5, d - 2), 0)


def min_rows(c: float, sided: str) -> int:
    """Smallest n with p_sensitivity(c/√n) ≤ MAX_P_SENSITIVITY."""
    from scipy.special import ndtri  # Φ⁻¹ (what scipy.stats.norm.ppf computes)

    target = MAX_P_SENSITIVITY / (2.0 if sided == "two" else 1.0)
    if target >= 0.5:
        return 1
    return int(math.ceil((c / ndtri(0.5 + target)) ** 2))


def check_sensitivity(sens: float, n: int, what: str, c: float, sided: str) -> None:
    if sens > MAX_P_SENSITIVITY:
        raise UserError(
            f"{n:,} rows are too few for {what}: the p-value sensitivity is {sens:.3g} (more than "
            f"{MAX_P_SENSITIVITY}), so the noise would drown every decision. Use at least {min_rows(c, sided):,} rows."
        )


@dataclass
class Setup:
    """What every private PC algorithm shares, settled before its policy is built: the proven Kendall test, the
    decision scale with its sensitivity, the noise sampler and generator, the budget (total ε, δ) and a function
    that opens the run's ledger (a budget filter), the maximum order, the algorithm's remaining options, and the
    notes, info and params the run reports. A plugged-in builder returns ``(policy, ledger)``."""

    algo: str
    test: Any
    data: Any
    rng: Any
    scale: Any
    sampler: str
    total: float | None
    delta: float
    max_order: int | None
    options: dict
    notes: list
    info: dict
    params: dict
    ledger_for: Any


def _builder(path: str):
    """The function ``module:name`` that builds a plugged-in algorithm's policy."""
    import importlib

    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def build_private_policy(algo: str, test, data, *, alpha: float, epsilon, round_epsilon, delta, seed,
                         max_order, options: dict[str, Any], orientation: str = "standard"):
    """Returns (policy, ledger, info, notes, max_order). ``seed`` None draws the noise from fresh entropy."""
    notes: list[str] = []
    info: dict[str, Any] = {}
    delta = validate_delta(delta)
    total = None if epsilon is None else validate_epsilon(epsilon, "the total budget ε (--epsilon)")
    rng, noise = noise_generator(seed)
    n, d = data.n, data.d
    # options were checked against their declarations (cgdcore.algorithms) by discover(); the rules that tie
    # options together are the algorithm's own and stay here
    statistic = options.pop("statistic", PARAMS["statistic"].default)
    c1 = options.pop("c1", None)
    if c1 is not None:
        c1 = float(c1)
        if statistic != "paper":
            raise UserError("c1 is the constant of Priv-PC's own statistic: it applies with statistic 'paper' "
                            "(--statistic paper); the sound statistic's sensitivity 9/√n is proven, not chosen.")
    composition = options.pop("composition", DEFAULT_RULE.get(algo, PARAMS["composition"].default))
    allowed = ("zcdp",) if algo == "gauss-pc" else COMPOSITIONS
    if composition not in allowed:
        raise UserError(f"the composition rule of {algo} must be one of {', '.join(allowed)}; got {composition!r}.")
    scale_kind = options.pop("scale", PARAMS["scale"].default)
    sided = getattr(test, "sided", None) or "one"
    if max_order is None and algo != "em-pc":
        max_order = max_reach(n, d)
        notes.append(f"maximum order {max_order} = max(min(⌊log2 n⌋ − 5, d − 2), 0), as in the papers' code")
    params: dict[str, Any] = {"epsilon": total, "delta": delta, "noise_seed": noise["seed"],
                              "composition": composition}
    sampler = check_sampler(options.pop("sampler", DEFAULT_SAMPLER))

    from cgdcore.central.policies import GaussPolicy, LaplacePolicy, PrivPCPolicy, SVTPolicy, optimal_subsample_ratio
    from cgdcore.central.scale import DecisionScale

    if REGISTRY[algo].budget == "round":
        if round_epsilon is None and total is not None:
            round_epsilon = round_epsilon_for(total, d, delta, composition, algo)
            notes.append(f"per-round ε not given: {round_epsilon:.4g}, the largest for which the {composition} filter "
                         f"admits {round_rule(algo, d)} within ε = {total:g}")
        elif round_epsilon is None:
            round_epsilon = 1.0
            notes.append("per-round ε not given: 1.0, the setting of Priv-PC's Table 2")
        round_epsilon = validate_epsilon(round_epsilon, "the per-round ε (--round-epsilon)")
        params["round_epsilon"] = round_epsilon
        if total is not None and total < round_epsilon:
            raise UserError(f"the total budget ε={total:g} is smaller than one round (per-round ε={round_epsilon:g}), "
                            "so not a single round could run; raise the cap or lower the per-round ε.")
        if total is None:
            notes.append("no total budget given: the guarantee is stated for the largest number of rounds any run "
                         "on data of this shape could make")
    elif round_epsilon is not None:
        raise UserError(f"{algo} plans its own per-test budgets from the total; give --epsilon, not --round-epsilon.")
    elif total is None:
        raise UserError(f"{algo} needs a total privacy budget: give --epsilon (e.g. 1.0).")
    if noise["seed"] is not None:
        notes.append(noise["note"])

    queries = max_ci_queries(d, max_order, orientation)

    def ledger_for(worst):
        return Ledger(budget=total, delta=delta, rule=composition, worst_case=worst)

    if algo == "em-pc":
        from cgdcore.central.empc import EMPCPolicy

        steps = d * ((d - 2 if max_order is None else max_order) + 1)
        ledger = ledger_for(((round_epsilon / 2, 2 * steps),))
        ledger.void_guarantee(EMPC_NOTE)
        policy = EMPCPolicy(test, ledger, rng, alpha=alpha, round_epsilon=round_epsilon,
                            max_flip_steps=options.pop("max_flip_steps", None))
        ledger.paper_rules["as in paper (advanced composition, ε per step)"] = _count_rule(
            round_epsilon, lambda: policy.steps)
        _reject_unknown(options, algo)
        notes = [note for note in notes if not note.startswith("no total budget given")]
        return policy, ledger, {"params": params, "noise": noise}, notes, max_order

    if algo == "gauss-pc" and test.name == "g2":
        return _gauss_g(test, data, rng, alpha, statistic, c1, options, max_order, params, info, notes,
                        noise, sampler, ledger_for)
    normaliser = "public" if statistic == "sound" else "strata"
    test = shared_ci_test("kendall", test.stats, sided=sided, normaliser=normaliser)
    if statistic == "sound":
        const = KENDALL_PUBLIC_C
        sens = p_sensitivity(const / math.sqrt(n), sided)
    else:
        const = 6.0 if c1 is None else c1
        sens = kendall_p_sensitivity(n, const, sided)
        params["c1"] = const
    params["statistic"] = statistic
    z_sens = const / math.sqrt(n)
    if algo == "curate":
        variant = options.pop("curate_sensitivity", PARAMS["curate_sensitivity"].default)
        if variant == "paper":
            sens = curate_p_sensitivity(n, "code", sided)
            notes.append("sensitivity 'as in paper' (C = 0.3627/√n, a p-value sensitivity, so the p scale): not a "
                         "valid worst-case bound")
            scale_kind = "p"
        params["curate_sensitivity"] = variant
    check_sensitivity(sens, n, algo, const, sided)
    scale = DecisionScale(scale_kind, alpha, sided, z_sens, sens)
    params["scale"] = scale_kind
    params["sensitivity"] = scale.sensitivity
    params["sampler"] = sampler

    spec = REGISTRY[algo]
    if spec.build is not None:  # an algorithm that plugs in: its builder gets the shared set-up
        setup = Setup(algo=algo, test=test, data=data, rng=rng, scale=scale, sampler=sampler, total=total,
                      delta=delta, max_order=max_order, options=options, notes=notes, info=info, params=params,
                      ledger_for=ledger_for)
        policy, ledger = _builder(spec.build)(setup)
    elif algo in ("laplace-pc", "gauss-pc"):
        ledger = ledger_for(None)
        cls = LaplacePolicy if algo == "laplace-pc" else GaussPolicy
        policy = cls(test, ledger, rng, scale, max_order=max_order, sampler=sampler)
        info["plan"] = policy.plan
    elif algo == "svt-pc":
        instances = math.comb(d, 2) if orientation == "standard" else queries
        ledger = ledger_for(((round_epsilon, instances),))
        policy = SVTPolicy(test, ledger, rng, scale, round_epsilon=round_epsilon, sampler=sampler)
        ledger.paper_rules["as in paper (advanced composition over K hits)"] = _count_rule(
            round_epsilon, lambda: policy.hits)
    elif algo == "priv-pc":
        ledger = ledger_for(((round_epsilon / 2, 2 * queries),))
        tweak = float(options.pop("tweak", PARAMS["tweak"].default))
        ratio = options.pop("subsample_ratio", None)
        if ratio is None and scale_kind == "z":
            # on the z scale a sub-sample of m rows shrinks every dependence's z by sqrt(m/n) while its noise is set
            # by ε' = ln(1 + (n/m)(e^{ε/2} − 1)): the sieve's signal-to-noise, ∝ m·ε', falls with n/m, so no
            # sub-sampling (n/m = 1) is optimal there; the paper's optimum is for the p-value scale
            ratio = 1.0
            notes.append("sub-sampling ratio n/m = 1: on the z scale a sub-sample costs the sieve more signal than "
                         "amplification gains")
        if ratio is None:
            # the sub-sample's sensitivity must stay usable: cap n/m accordingly
            hi = max(1.0, min(20.0, 0.99 * n / min_rows(const, sided)))
            ratio = optimal_subsample_ratio(round_epsilon, hi=hi)
            if hi < 20.0:
                notes.append(f"sub-sampling ratio n/m capped at {hi:.3g} so the sub-sample's sensitivity stays "
                             f"≤ {MAX_P_SENSITIVITY}")
        m = max(2, min(n, int(math.floor(n / float(ratio)))))
        if statistic == "sound":
            sub_sens = p_sensitivity(const / math.sqrt(m), sided)  # the same proof on m rows
        else:
            sub_sens = sens * math.sqrt(n / m)  # the reference code's Δ·sqrt(n/m)
        check_sensitivity(sub_sens, m, "Priv-PC's sub-sample", const, sided)
        if scale_kind == "z":
            sub_sens = const / math.sqrt(m)
        policy = PrivPCPolicy(test, ledger, rng, scale, round_epsilon=round_epsilon, tweak=tweak,
                              ratio=float(ratio), sub_sensitivity=sub_sens, sampler=sampler)
        ledger.paper_rules["as in paper (advanced composition over K rounds)"] = _count_rule(
            round_epsilon, lambda: policy.rounds)
        ledger.paper_rules["as in reference code (sieve and examine composed apart)"] = (
            lambda led: privpc_code_composition(policy.rounds, round_epsilon, led.delta))
        params.update({"tweak": tweak})
        mech = policy.mechanism
        info.update({"subsample_rows": policy.m, "subsample_ratio": n / policy.m, "sieve_epsilon": mech.eps_sieve,
                     "threshold_noise_scale": mech.sieve.threshold_scale, "sieve_noise_scale": mech.sieve.query_scale,
                     "examine_noise_scale": mech.examine.noise.scale})
    else:  # curate
        from cgdcore.central.curate import CuratePolicy

        ledger = ledger_for(None)
        beta1 = float(options.pop("beta1", PARAMS["beta1"].default))
        beta2 = float(options.pop("beta2", PARAMS["beta2"].default))
        rule = options.pop("leakage", PARAMS["leakage"].default)
        policy = CuratePolicy(test, ledger, rng, scale, d=d, max_order=max_order, beta1=beta1, beta2=beta2,
                              leakage_rule=rule, sampler=sampler)
        if params["curate_sensitivity"] == "paper":
            ledger.void_guarantee(CURATE_PAPER_NOTE)
        params.update({"beta1": beta1, "beta2": beta2, "leakage": rule})
        info["plans"] = policy.plans
        info["epsilon_floor"] = policy.floor
    if statistic == "paper":
        ledger.void_guarantee(PAPER_STATISTIC_NOTE)
    if sampler == "plain":
        ledger.void_guarantee(PLAIN_NOTE)
    _reject_unknown(options, algo)
    info["params"] = params
    info["noise"] = noise
    if not ledger.guarantee_valid:  # a run without a proof states no bound, not even at its worst case
        notes = [note for note in notes if not note.startswith("no total budget given")]
    return policy, ledger, info, notes, max_order


def _gauss_g(test, data, rng, alpha, statistic, c1, options, max_order, params, info, notes, noise,
             sampler, ledger_for):
    """Gauss-PC on the G statistic: ΔG = g2_sensitivity(n) (proven for any arities and strata), the excess over
    the public-dof χ² quantile released per edge (cgdcore.central.scale.GScale)."""
    from cgdcore.central.policies import GaussPolicy
    from cgdcore.central.scale import GScale

    if statistic != "sound" or c1 is not None:
        raise UserError("the statistic and c1 options choose Priv-PC's Kendall statistic; with the g2 test "
                        "Gauss-PC releases G, whose sensitivity is proven (leave them out).")
    scale = GScale(alpha, g2_sensitivity(data.n), data.arities)
    params.update({"statistic": "g2", "scale": "g", "sensitivity": scale.sensitivity, "sampler": sampler})
    notes.append(f"G statistic with sensitivity ΔG = {scale.sensitivity:.4g} (4[n ln n − (n − 1) ln(n − 1)]); the "
                 "degrees of freedom come from the numbers of levels, which are taken as public (the schema)")
    ledger = ledger_for(None)
    policy = GaussPolicy(test, ledger, rng, scale, max_order=max_order, sampler=sampler)
    info.update({"plan": policy.plan, "params": params, "noise": noise})
    _reject_unknown(options, "gauss-pc")
    return policy, ledger, info, notes, max_order


def _count_rule(eps: float, rounds):
    """The papers' literal total: advanced composition over the K = ``rounds()`` completed rounds at ε each
    (the open last round is not counted, as in the papers)."""
    from cgdcore.privacy.ledger import advanced_composition_homogeneous

    def rule(ledger: Ledger):
        k = int(rounds())
        return advanced_composition_homogeneous(k, eps, ledger.delta) if k else (0.0, ledger.delta)

    return rule


def _reject_unknown(options: dict, algo: str) -> None:
    if options:
        raise UserError(f"option(s) {', '.join(sorted(options))} do not apply to {algo}.")
