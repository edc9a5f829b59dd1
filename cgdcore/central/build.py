"""From an algorithm name and parameters to its policy, sensitivity and ledger."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from cgdcore import UserError
from cgdcore.accounting import Ledger, privpc_code_composition, validate_delta, validate_epsilon
from cgdcore.central.mechanisms import DEFAULT_SAMPLER, check_sampler
from cgdcore.citests import curate_p_sensitivity, kendall_p_sensitivity

__all__ = ["build_private_policy", "max_reach", "check_sensitivity"]

#: The largest p-value sensitivity a run may use: beyond it the noise swamps any decision
#: (the one-sided p-value lives in [0, ½]).
MAX_P_SENSITIVITY = 0.1


def max_reach(n: int, d: int) -> int:
    """Priv-PC/CURATE reference codes' order cap: max(min(⌊log2 n⌋ − 5, d − 2), 0)."""
    return max(min(int(math.floor(math.log2(max(n, 1)))) - 5, d - 2), 0)


def min_rows(c1: float, sided: str, inflation: float = 1.0) -> int:
    """Smallest n with inflation·(Φ(c1/√n) − ½)·(2 if two-sided) ≤ MAX_P_SENSITIVITY."""
    from scipy.stats import norm

    factor = (2.0 if sided == "two" else 1.0) * inflation
    target = MAX_P_SENSITIVITY / factor
    if target >= 0.5:
        return 1
    return int(math.ceil((c1 / norm.ppf(0.5 + target)) ** 2))


def check_sensitivity(sens: float, n: int, what: str, c1: float, sided: str, inflation: float = 1.0) -> None:
    if sens > MAX_P_SENSITIVITY:
        need = min_rows(c1, sided, inflation)
        raise UserError(
            f"{n} rows are too few for {what}: the p-value sensitivity is {sens:.3g} (more than "
            f"{MAX_P_SENSITIVITY}), so the noise would drown every decision. Use at least {need:,} rows."
        )


def build_private_policy(algo: str, test, data, *, alpha: float, epsilon, round_epsilon, delta, seed,
                         max_order, options: dict[str, Any]):
    """Returns (policy, ledger, info, notes, max_order)."""
    notes: list[str] = []
    info: dict[str, Any] = {}
    delta = validate_delta(delta)
    total = None if epsilon is None else validate_epsilon(epsilon, "the total budget ε (--epsilon)")
    rng = np.random.default_rng(seed)
    n, d = data.n, data.d
    c1 = float(options.pop("c1", 6.0))
    if not (c1 > 0 and math.isfinite(c1)):
        raise UserError(f"the sensitivity constant c1 must be a positive number; got {c1!r}.")
    sided = getattr(test, "sided", None) or "one"
    if max_order is None and algo != "em-pc":
        max_order = max_reach(n, d)
        notes.append(f"maximum order {max_order} = max(min(⌊log2 n⌋ − 5, d − 2), 0), as in the papers' code")
    params: dict[str, Any] = {"epsilon": total, "delta": delta, "seed": seed, "c1": c1}
    sampler_given = "sampler" in options
    sampler = check_sampler(options.pop("sampler", DEFAULT_SAMPLER))

    from cgdcore.central.curate import CuratePolicy
    from cgdcore.central.empc import EMPCPolicy
    from cgdcore.central.policies import LaplacePolicy, PrivPCPolicy, SVTPolicy

    if algo in ("svt-pc", "priv-pc", "em-pc"):
        if round_epsilon is None:
            round_epsilon = 1.0
            notes.append("per-round ε not given: 1.0, the setting of Priv-PC's Table 2")
        round_epsilon = validate_epsilon(round_epsilon, "the per-round ε (--round-epsilon)")
        params["round_epsilon"] = round_epsilon
        if total is not None and total < round_epsilon:
            raise UserError(f"the total budget ε={total:g} is smaller than one round (per-round ε={round_epsilon:g}), "
                            "so not a single round could run; raise the cap or lower the per-round ε.")
        if total is None:
            notes.append("no total budget given: the run is uncapped and reports what it spent")
    elif round_epsilon is not None:
        raise UserError(f"{algo} plans its own per-test budgets from the total; give --epsilon, not --round-epsilon.")
    elif total is None:
        raise UserError(f"{algo} needs a total privacy budget: give --epsilon (e.g. 1.0).")

    if algo == "em-pc":
        if sampler_given:
            raise UserError("the noise sampler applies to the Laplace-based algorithms (laplace-pc, svt-pc, priv-pc, "
                            "curate); em-pc samples the exponential mechanism instead.")
        notes.append("EM-PC's guarantee assumes its utilities (greedy counts of records that flip a G-test) change "
                     "by at most 1 between neighbouring datasets, as its authors' code does; the greedy search does "
                     "not prove this (Priv-PC §4.2)")
        ledger = Ledger(budget=total, delta=delta, groups_planned=2)
        ledger.paper_rules["as in paper (advanced composition, ε per step)"] = _em_paper_rule(round_epsilon)
        policy = EMPCPolicy(test, ledger, rng, alpha=alpha, round_epsilon=round_epsilon,
                            max_flip_steps=options.pop("max_flip_steps", None))
        _reject_unknown(options, algo)
        return policy, ledger, {"params": params}, notes, max_order

    sens = kendall_p_sensitivity(n, c1, sided)
    if algo == "curate":
        variant = options.pop("curate_sensitivity", "conservative")
        if variant == "paper":
            sens = curate_p_sensitivity(n, "code", sided)
            notes.append("sensitivity 'as in paper' (C = 0.3627/√n): not a valid worst-case bound")
        elif variant != "conservative":
            raise UserError("curate sensitivity must be 'conservative' or 'paper'.")
        params["curate_sensitivity"] = variant
    check_sensitivity(sens, n, algo, c1, sided)
    params["sensitivity"] = sens
    params["sampler"] = sampler
    if sampler == "plain":
        notes.append("noise from numpy's Laplace sampler ('plain'): its floating-point outputs leak the noised "
                     "value through the gaps between doubles (Mironov 2012), so the stated ε holds only in exact "
                     "arithmetic; the default 'snapping' sampler closes the gap")

    if algo == "laplace-pc":
        ledger = Ledger(budget=total, delta=delta, groups_planned=max_order + 1)
        policy = LaplacePolicy(test, ledger, rng, alpha, sens, max_order=max_order, sampler=sampler)
        info["plan"] = policy.plan
    elif algo == "svt-pc":
        ledger = Ledger(budget=total, delta=delta, groups_planned=1)
        ledger.paper_rules["as in paper (advanced composition over K hits)"] = _k_rule(round_epsilon)
        policy = SVTPolicy(test, ledger, rng, alpha, sens, round_epsilon=round_epsilon, sampler=sampler)
    elif algo == "priv-pc":
        ledger = Ledger(budget=total, delta=delta, groups_planned=2)
        tweak = float(options.pop("tweak", 0.02))
        ratio = options.pop("subsample_ratio", None)
        if ratio is not None and not (1.0 <= float(ratio) <= 20.0):
            raise UserError(f"the sub-sampling ratio n/m must be between 1 and 20; got {ratio!r}.")
        if ratio is None:
            from cgdcore.central.policies import optimal_subsample_ratio

            # the sub-sample's sensitivity Δ·sqrt(n/m) must stay usable: cap n/m accordingly
            hi = max(1.0, min(20.0, 0.99 * (MAX_P_SENSITIVITY / sens) ** 2))
            ratio = optimal_subsample_ratio(round_epsilon, hi=hi)
            if hi < 20.0:
                notes.append(f"sub-sampling ratio n/m capped at {hi:.3g} so the sub-sample's sensitivity stays "
                             f"≤ {MAX_P_SENSITIVITY}")
        policy = PrivPCPolicy(test, ledger, rng, alpha, sens, round_epsilon=round_epsilon, tweak=tweak,
                              ratio=float(ratio), sampler=sampler)
        check_sensitivity(policy.sub_sensitivity, n, "Priv-PC's sub-sample", c1, sided, inflation=math.sqrt(ratio))
        ledger.paper_rules["as in paper (advanced composition over K rounds)"] = _k_rule(round_epsilon)
        ledger.paper_rules["as in reference code (sieve and examine composed apart)"] = (
            lambda led: privpc_code_composition(policy.rounds, round_epsilon, led.delta))
        params.update({"tweak": tweak})
        info.update({"subsample_rows": policy.m, "subsample_ratio": n / policy.m, "sieve_epsilon": policy.eps_sieve,
                     "threshold_noise_scale": policy.threshold_scale, "sieve_noise_scale": policy.query_scale,
                     "examine_noise_scale": policy.examine_scale})
    else:  # curate
        ledger = Ledger(budget=total, delta=delta, groups_planned=max_order + 1)
        beta1 = float(options.pop("beta1", 0.2))
        beta2 = float(options.pop("beta2", 0.2))
        rule = options.pop("leakage", "sound")
        policy = CuratePolicy(test, ledger, rng, alpha, sens, d=d, max_order=max_order, beta1=beta1, beta2=beta2,
                              leakage_rule=rule, sampler=sampler)
        if params["curate_sensitivity"] == "paper":
            ledger.void_guarantee("CURATE's 'paper' sensitivity 0.3627/√n is not a valid worst-case bound, so the "
                                  "noise is too small for the stated ε")
        params.update({"beta1": beta1, "beta2": beta2, "leakage": rule})
        info["plans"] = policy.plans
        info["epsilon_floor"] = policy.floor
    _reject_unknown(options, algo)
    info["params"] = params
    return policy, ledger, info, notes, max_order


def _k_rule(eps: float):
    """Priv-PC's paper-literal total: advanced composition over K rounds of ε each (form (A))."""
    from cgdcore.accounting import advanced_composition_homogeneous

    def rule(ledger: Ledger):
        k = sum(1 for r in ledger.releases if r.group in ("svt", "sieve"))
        return advanced_composition_homogeneous(k, eps, ledger.delta) if k else (0.0, ledger.delta)

    return rule


def _em_paper_rule(eps: float):
    from cgdcore.accounting import advanced_composition_homogeneous

    def rule(ledger: Ledger):
        k = sum(1 for r in ledger.releases if r.group == "em-count")
        return advanced_composition_homogeneous(k, eps, ledger.delta) if k else (0.0, ledger.delta)

    return rule


def _reject_unknown(options: dict, algo: str) -> None:
    if options:
        raise UserError(f"option(s) {', '.join(sorted(options))} do not apply to {algo}.")
