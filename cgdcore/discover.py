"""One call from a Dataset to a learned graph with metrics: what the CLI, the app and sweeps use.

``discover(dataset, algo=..., ...)`` looks the algorithm up in the registry, validates its options, privatises
the records first when local privacy is asked for, and runs the algorithm's family: the one PC engine with a
p-value or private policy (:func:`_discover_pc`), the channel-aware test on privatised data, the score-based
optimisers, or the encrypted federation. Every family returns a typed :class:`~cgdcore.discovery.Discovery`,
scored against the truth when there is one, that serialises to the JSON contract of DESIGN.md.
"""
from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any, Callable, Mapping

import numpy as np

from . import UserError
from .data.dataset import Dataset
from .algorithms import PARAMS, REGISTRY, check_options, names
from .privacy import PUBLIC_CATEGORIES_NOTE
from .discovery import Discovery, FheDetails, Privacy, ScoreDetails, learned_nothing  # noqa: F401 (re-exported)

#: Views of the registry (cgdcore.algorithms), kept for callers that list algorithms by kind.
ALGORITHMS: dict[str, str] = {s.name: s.summary for s in REGISTRY.values()}
SCORE_ALGORITHMS = names(family="score")
#: what a person reads for an algorithm whose command-line name is not its name (the CLI name stays beside it)
ALGO_LABELS = {"noleaks": f"{REGISTRY['noleaks'].title} (noleaks)"}


def algo_label(name: str) -> str:
    """The user-facing name of an algorithm or sweep label: ``noleaks`` → "DP-NOTEARS (noleaks)",
    ``noleaks[release=gradient]`` → "DP-NOTEARS (noleaks[release=gradient])", anything else unchanged."""
    base = name.split("[", 1)[0]
    return f"{ALGO_LABELS[base].split(' (')[0]} ({name})" if base in ALGO_LABELS else name


DISCRETE_TESTS = ("kendall", "chi2", "g2")
PRIVATE_ALGORITHMS = names(family="private-pc")
#: Algorithms parameterised by a per-round ε (DESIGN.md: the sparse-vector family).
ROUND_ALGORITHMS = names(budget="round")
#: Paper defaults: threshold T on the p-value scale and the run's δ.
ALGO_DEFAULTS: dict[str, dict[str, Any]] = {
    s.name: {"alpha": s.alpha, **({} if s.delta is None else {"delta": s.delta})} for s in REGISTRY.values()}
#: options of fhe-pc (``discover(..., options=...)``) and their defaults
FHE_OPTIONS = {k: PARAMS[k].default for k in REGISTRY["fhe-pc"].params}


def validate_alpha(alpha: Any) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise UserError(f"alpha must be a number between 0 and 1 (got {alpha!r}).") from None
    if not (0.0 < a < 1.0) or math.isnan(a):
        raise UserError(f"alpha must be strictly between 0 and 1 (got {alpha}); 0.05 or 0.01 are usual.")
    return a


def cap_max_order(max_order: int | None, d: int, notes: list[str]) -> int | None:
    """A conditioning set never has more than d − 2 members: a larger limit is no limit, and a note says so."""
    if max_order is not None and max_order > d - 2:
        top = max(d - 2, 0)
        notes.append(f"maximum order {max_order} is more than {d} variables allow (a conditioning set leaves out "
                     f"the tested pair, so it has at most {top} member{'' if top == 1 else 's'}); PC used {top}")
        return top
    return max_order


def _too_few_rows(n: int) -> UserError:
    return UserError(f"the data has only {n} row{'' if n == 1 else 's'}; causal discovery needs at least 5 "
                     f"(more is better).")


def default_orientation(algo: str, variant: str = "stable", ldp: Mapping[str, Any] | None = None) -> str:
    """The collider rule of a run that names none: ``"union"`` (causal-learn's stable PC: a collider only if the
    middle node is in none of the separating sets at the removal depth; SHD 0 on Child at n = 100k where
    ``"standard"`` has 11, bench/orientation.py) for non-private PC on the stable skeleton of unprivatised data,
    whose extra tests cost no privacy; ``"standard"`` for the private algorithms (a re-test would be one more
    release to pay for) and for PC on locally privatised data (the local-privacy paper's setting)."""
    return "union" if algo == "pc" and variant == "stable" and ldp is None else "standard"


def default_ci_test(dataset: Dataset) -> str:
    return "g2" if dataset.is_discrete else "fisherz"


def prepare_data(dataset: Dataset, ci_test: str, bins: int | None, private: bool = False
                 ) -> tuple[Dataset, list[str]]:
    """Make the data fit the CI test: discretise numeric columns for discrete tests if asked — into quantile
    bins for a non-private run, into equal-width bins over the declared public ranges for a private one
    (quantile edges computed from the rows would reveal them)."""
    from .data.checks import check_discrete_usable

    notes: list[str] = []
    if ci_test not in DISCRETE_TESTS:
        return dataset, notes
    too_many = [(v, len(s)) for v, s in zip(dataset.variables, dataset.states) if s is not None and len(s) > 64]
    if too_many:  # discretising does not fix this one, so say it first
        check_discrete_usable(dataset)
    if not dataset.is_discrete:
        from .data import tabular

        numeric = [v for v, s in zip(dataset.variables, dataset.states) if s is None]
        if not bins:
            raise UserError(
                f"the {ci_test} test needs discrete data, but column(s) {', '.join(numeric[:5])} are numeric: "
                "discretise them (CLI: --bins 3; app: 'bins for numeric columns') or use the fisherz test."
            )
        if private:
            dataset = tabular.discretise(dataset, bins=int(bins), method="public")
            notes.append(f"numeric columns cut into {int(bins)} equal-width bins over their public ranges "
                         f"({tabular.format_ranges({v: dataset.ranges[v] for v in numeric})}) for the {ci_test} "
                         "test; values outside a range were clipped to it")
        else:
            dataset = tabular.discretise(dataset, bins=int(bins))
            notes.append(f"numeric columns discretised into {int(bins)} quantile bins for the {ci_test} test")
    check_discrete_usable(dataset)
    return dataset, notes


def discover(
    dataset: Dataset,
    *,
    algo: str = "pc",
    ci_test: str | None = None,
    alpha: float | None = None,
    variant: str = "stable",
    orientation: str | None = None,
    max_order: int | None = None,
    kendall_sided: str | None = None,
    bins: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    epsilon: float | None = None,
    round_epsilon: float | None = None,
    delta: float | None = None,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    ldp: Mapping[str, Any] | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
) -> Discovery:
    """Learn a CPDAG from ``dataset`` with algorithm ``algo`` and score it against the truth.

    Parameters mirror the CLI: ``ci_test`` in {kendall, chi2, g2, fisherz} (default: g2 for
    discrete data, fisherz for numeric), significance ``alpha``, skeleton ``variant``
    (stable/original), v-structure ``orientation`` rule (standard/priority/conservative/majority/union; None:
    :func:`default_orientation`),
    ``max_order`` (largest conditioning set, None = unbounded), ``kendall_sided`` ("two", or
    "one" as in the Priv-PC reference code), ``bins`` (quantile bins for numeric columns
    when a discrete test is used).

    Private algorithms (``PRIVATE_ALGORITHMS``): ``epsilon`` is the total budget (a hard cap
    kept by the ledger), ``round_epsilon`` the per-round ε of the sparse-vector family,
    ``delta`` the run's δ, ``seed`` the noise seed (None, the default: fresh operating-system
    entropy, never reported; a fixed seed makes the run a reproducible demo). ``alpha`` is the
    threshold T (paper defaults in ``ALGO_DEFAULTS`` when None). ``options``: ``statistic``
    ("sound", the proven Kendall statistic; "paper", Priv-PC's, no guarantee), ``c1`` (the paper
    statistic's constant, 6), ``composition`` ("advanced"/"basic", the filter's rule),
    ``sampler`` ("discrete"/"plain"), ``tweak`` (Priv-PC t, 0.02), ``subsample_ratio`` (Priv-PC
    n/m, optimal when None), ``curate_sensitivity`` ("conservative"/"paper"), ``leakage``
    ("sound"/"paper"), ``beta1``/``beta2`` (0.2), ``max_flip_steps`` (EM-PC).

    Local privacy (``ldp``): a mapping with ``mechanism`` (see ``cgdcore.local.MECHANISMS``),
    ``epsilon`` or ``p_max``, and optionally ``seed`` (default ``seed``), ``bins`` (equal-width
    bins for numeric columns, 10), ``log``, ``split``, ``debias`` (None, "invert" or "ibu"),
    ``calibration`` ("bootstrap" or "neff") and ``n_boot`` (99). Every record is privatised
    first; discovery is then post-processing. ``debias`` runs PC with the channel-aware G-test.

    ``ranges``: public ranges {column: (lo, hi)} of numeric columns, added to the dataset's declared ones;
    every private use of a numeric column (local privatisation, central private binning, DP-NOTEARS's
    centring and clipping) needs one.
    """
    from .data.checks import check_category_counts

    if orientation is None:
        orientation = default_orientation(algo, variant, ldp)
    options = _checked_options(algo, options)
    check_category_counts(dataset)  # every algorithm: an identifier-like column is never usable
    if ranges:
        from .data.tabular import parse_ranges

        dataset = dataset.with_ranges(parse_ranges(ranges, dataset.variables) if isinstance(ranges, str)
                                      else ranges)
    if dataset.n < 5:  # before privatising or discretising, whose own complaints would hide this one
        raise _too_few_rows(dataset.n)
    release = None
    if ldp is not None:  # local privatisation: every record randomised first; discovery is post-processing
        dataset, release, debias = _privatise_for(dataset, algo, ci_test, dict(ldp), seed)
        if debias is not None:
            return _discover_debiased(dataset, release, debias, ci_test=ci_test, alpha=alpha, variant=variant,
                                      orientation=orientation, max_order=max_order, progress=progress,
                                      seed=seed if debias.get("seed") is None else debias["seed"])
    family = REGISTRY[algo].family
    if family == "fhe":
        if ldp is not None:
            raise UserError("fhe-pc protects the owners' counts with encryption (and optionally central DP); "
                            "it does not take local privatisation (--ldp).")
        return _discover_fhe(dataset, ci_test=ci_test, alpha=alpha, max_order=max_order, epsilon=epsilon,
                             delta=delta, seed=seed, options=options, progress=progress, bins=bins)
    if family == "score":
        run = _discover_score(dataset, algo, epsilon=epsilon, delta=delta, seed=seed, options=options,
                              round_epsilon=round_epsilon)
    else:
        run = _discover_pc(dataset, algo, ci_test=ci_test, alpha=alpha, variant=variant, orientation=orientation,
                           max_order=max_order, kendall_sided=kendall_sided, bins=bins, progress=progress,
                           epsilon=epsilon, round_epsilon=round_epsilon, delta=delta, seed=seed, options=options)
    return _with_release(run, release)


def _checked_options(algo: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``options`` checked against the algorithm's declarations (known, of their kind, within range); fhe-pc's
    ``on_message`` (a callable for status lines, the app's progress text) passes through unchecked."""
    options = dict(options or {})
    on_message = options.pop("on_message", None)
    options = check_options(algo, options)
    if on_message is not None:
        options["on_message"] = on_message
    return options


def _pc_settings(dataset: Dataset, algo: str, ci_test, alpha, orientation, kendall_sided, epsilon, round_epsilon
                 ) -> tuple[str, float, str]:
    """The CI test, α and Kendall sidedness of a PC run, checked against what the algorithm allows."""
    spec = REGISTRY[algo]
    alpha = validate_alpha(spec.alpha if alpha is None else alpha)
    if spec.family == "private-pc":
        ci_test = ci_test or spec.ci_tests[0]
        if algo == "em-pc" and ci_test not in spec.ci_tests:
            raise UserError("em-pc uses the G-test (its utility counts records that flip a G-test); "
                            "choose the g2 CI test.")
        if ci_test not in spec.ci_tests:
            allowed = " or ".join(f"'{t}'" for t in spec.ci_tests)
            raise UserError(f"{algo} needs the {allowed} CI test: the others' sensitivity is unbounded or unproven "
                            "for it, so no finite noise makes them private.")
        if algo == "em-pc" and orientation != "standard":
            raise UserError("em-pc decides whole nodes with the exponential mechanism and cannot re-test "
                            "separating sets; use the standard collider rule.")
        return ci_test, alpha, kendall_sided or "one"
    if epsilon is not None or round_epsilon is not None:
        raise UserError("'pc' is not private; --epsilon/--round-epsilon apply to laplace-pc, gauss-pc, svt-pc, "
                        "priv-pc, em-pc and curate.")
    return ci_test or default_ci_test(dataset), alpha, kendall_sided or "two"


def _discover_pc(dataset: Dataset, algo: str, *, ci_test, alpha, variant, orientation, max_order, kendall_sided,
                 bins, progress, epsilon, round_epsilon, delta, seed, options) -> Discovery:
    """The PC family: the one engine with the p-value policy (pc) or a private policy and its ledger."""
    from .citests import shared_ci_test, suffstats_for
    from .metrics import evaluate
    from .pc import PValuePolicy, pc

    ci_test, alpha, kendall_sided = _pc_settings(dataset, algo, ci_test, alpha, orientation, kendall_sided,
                                                 epsilon, round_epsilon)
    private = REGISTRY[algo].family == "private-pc"
    notes: list[str] = []
    max_order = cap_max_order(max_order, dataset.d, notes)
    t0 = time.perf_counter()
    data, bin_notes = prepare_data(dataset, ci_test, bins, private=private)
    notes += bin_notes
    if private and dataset.categories_from_file:  # not bundled Adult, whose schema is declared
        notes.append(PUBLIC_CATEGORIES_NOTE)
    from .data.tabular import DROPPED_NOTE

    if private and any(note.startswith(DROPPED_NOTE + " ") for note in dataset.notes):
        notes.append("the rows dropped for missing values (which ones, and how many) are read from the file itself: "
                     "the guarantee covers the rows kept, their number taken as given, not the dropping or its count")
    if data.n < 5:
        raise _too_few_rows(data.n)
    test = shared_ci_test(ci_test, suffstats_for(data.data, data.arities),
                          **({"sided": kendall_sided} if ci_test == "kendall" else {}))
    params = {"ci_test": ci_test, "alpha": alpha, "variant": variant, "orientation": orientation,
              "max_order": max_order}
    if ci_test == "kendall":
        params["kendall_sided"] = kendall_sided
    if bins and not dataset.is_discrete and ci_test in DISCRETE_TESTS:
        params["bins"] = int(bins)
    ledger, info = None, {}
    if private:
        from .central.build import build_private_policy

        policy, ledger, info, pnotes, max_order = build_private_policy(
            algo, test, data, alpha=alpha, epsilon=epsilon, round_epsilon=round_epsilon,
            delta=REGISTRY[algo].delta if delta is None else delta, seed=seed, max_order=max_order,
            options=dict(options or {}), orientation=orientation)
        notes.extend(pnotes)
        params.update(info.pop("params", {}))
        params["max_order"] = max_order
    else:
        policy = PValuePolicy(test, alpha)
    result = pc(policy, data.variables, variant=variant, orientation=orientation, max_order=max_order,
                progress=progress, params=params)
    metrics = evaluate(result.cpdag, data.truth) if data.truth is not None else None
    seconds = time.perf_counter() - t0
    if ledger is None:
        return Discovery(dataset=data, algorithm=algo, params=params, result=result, metrics=metrics,
                         seconds=seconds, notes=tuple(dataset.notes) + tuple(notes))
    nothing = learned_nothing(result)
    if nothing:
        notes.append(nothing)
    return Discovery(dataset=data, algorithm=algo, params=params, result=result, metrics=metrics, seconds=seconds,
                     notes=tuple(dataset.notes) + tuple(notes), privacy=Privacy({**ledger.summary(), **info}),
                     ledger=ledger, policy=policy)




_LDP_KEYS = {"mechanism", "epsilon", "p_max", "seed", "bins", "log", "split", "debias", "calibration", "n_boot"}


def _privatise_for(dataset: Dataset, algo: str, ci_test, ldp: dict, seed):
    """Privatise ``dataset`` as ``ldp`` asks; returns (privatised, release, debias options or None)."""
    from .local.debias import CALIBRATIONS, DEBIAS_METHODS, DEBIASED_TESTS
    from .local.privatize import DEFAULT_BINS, privatize

    extra = set(ldp) - _LDP_KEYS
    if extra:
        raise UserError(f"unknown local-privacy option(s) {sorted(extra)}; allowed: {', '.join(sorted(_LDP_KEYS))}.")
    if REGISTRY[algo].private and algo != "fhe-pc":
        raise UserError(f"local privacy already protects every record, so the discovery after it is post-processing "
                        f"and needs no budget: use --algo pc (or notears) with --ldp, not {algo}.")
    debias = ldp.get("debias")
    if debias is not None:
        if debias not in DEBIAS_METHODS:
            raise UserError(f"--debias must be one of {', '.join(DEBIAS_METHODS)}; got {debias!r}.")
        if algo != "pc":
            raise UserError("de-biased CI tests serve PC; use --algo pc with --debias.")
        if ci_test is not None and ci_test not in DEBIASED_TESTS:
            raise UserError(f"the de-biased test is the G-test on channel-inverted contingency tables: use "
                            f"--ci-test g2 (or leave it out) with --debias; got --ci-test {ci_test}.")
        cal = ldp.get("calibration") or "bootstrap"
        if cal not in CALIBRATIONS:
            raise UserError(f"calibration must be one of {', '.join(CALIBRATIONS)}; got {cal!r}.")
    bins = ldp.get("bins") or DEFAULT_BINS
    if isinstance(bins, bool) or not isinstance(bins, int) or not 2 <= bins <= 64:
        raise UserError(f"bins for local privatisation must be a whole number from 2 to 64; got {bins!r}.")
    pseed = seed if ldp.get("seed") is None else ldp["seed"]
    priv, release = privatize(dataset, ldp.get("mechanism"), epsilon=ldp.get("epsilon"), p_max=ldp.get("p_max"),
                              seed=pseed, split=ldp.get("split") or "proportional", bins=bins,
                              log=bool(ldp.get("log")))
    if debias is None:
        return priv, release, None
    return priv, release, {"method": debias, "calibration": ldp.get("calibration") or "bootstrap",
                           "n_boot": int(ldp.get("n_boot") or 99), "seed": None}


def _with_release(disc: Discovery, release) -> Discovery:
    """Attach a local release: its privacy object, the release itself and the ``ldp`` params."""
    if release is None:
        return disc
    params = {**disc.params, "ldp": {"mechanism": release.mechanism, release.parameter: release.value}}
    return replace(disc, params=params, privacy=Privacy(release.privacy()), release=release)


def _discover_debiased(dataset: Dataset, release, debias: dict, *, ci_test, alpha, variant, orientation, max_order,
                       progress, seed) -> Discovery:
    """PC with the channel-aware test on privatised data (cgdcore.local.debias)."""
    from .local.debias import DebiasedStats, DebiasedTest
    from .metrics import evaluate
    from .pc import PValuePolicy, pc

    alpha = validate_alpha(0.05 if alpha is None else alpha)
    ci_test = ci_test or "g2"
    notes = list(dataset.notes)
    max_order = cap_max_order(max_order, dataset.d, notes)
    t0 = time.perf_counter()
    if dataset.n < 5:
        raise _too_few_rows(dataset.n)
    stats = DebiasedStats(np.asarray(dataset.data), release, debias["method"])
    test = DebiasedTest(ci_test, stats, calibration=debias["calibration"], n_boot=debias["n_boot"], seed=seed)
    params = {"ci_test": ci_test, "alpha": alpha, "variant": variant, "orientation": orientation,
              "max_order": max_order, "debias": debias["method"], "calibration": debias["calibration"]}
    if debias["calibration"] == "bootstrap":
        params["n_boot"] = debias["n_boot"]
    result = pc(PValuePolicy(test, alpha), dataset.variables, variant=variant, orientation=orientation,
                max_order=max_order, progress=progress, params=params)
    metrics = evaluate(result.cpdag, dataset.truth) if dataset.truth is not None else None
    notes.append(f"de-biased {ci_test} test: true tables estimated by channel "
                 f"{'inversion + simplex projection' if debias['method'] == 'invert' else 'IBU (EM)'}, p-values by "
                 f"{'parametric bootstrap (' + str(debias['n_boot']) + ' replicates)' if debias['calibration'] == 'bootstrap' else 'χ² at the effective sample size'}")
    if test.n_untestable:
        notes.append(f"{test.n_untestable} test(s) had too many cells for the bootstrap and kept their edge")
    disc = Discovery(dataset=dataset, algorithm="pc", params=params, result=result, metrics=metrics,
                     seconds=time.perf_counter() - t0, notes=tuple(notes), debiased_test=test)
    return _with_release(disc, release)


def _discover_score(dataset: Dataset, algo: str, *, epsilon, delta, seed, options, round_epsilon) -> Discovery:
    """Score-based algorithms: no CI tests; the thresholded W is the learned graph (a DAG)."""
    from .metrics import evaluate
    from .score.run import run_score

    if round_epsilon is not None:
        raise UserError(f"{algo} takes a total budget (--epsilon), not --round-epsilon.")
    if dataset.n < 5:
        raise _too_few_rows(dataset.n)
    t0 = time.perf_counter()
    result, ledger, info, notes = run_score(dataset, algo, epsilon=epsilon, delta=delta, seed=seed,
                                            options=dict(options or {}))
    metrics = evaluate(result.cpdag, dataset.truth) if dataset.truth is not None else None
    params = dict(info.pop("params"))
    score = ScoreDetails(W=result.extras["W"], trace=result.extras["trace"], sigmas=info.get("sigmas"))
    privacy = None
    if ledger is not None:
        from .privacy import noise_info

        privacy = Privacy({**ledger.summary(), **{k: v for k, v in info.items() if k != "sigmas"},
                           "noise": noise_info(seed)})
    return Discovery(dataset=dataset, algorithm=algo, params=params, result=result, metrics=metrics,
                     seconds=time.perf_counter() - t0, notes=tuple(dataset.notes) + tuple(notes), privacy=privacy,
                     ledger=ledger, score=score)


def _discover_fhe(dataset: Dataset, *, ci_test, alpha, max_order, epsilon, delta, seed, options, progress,
                  bins) -> Discovery:
    """fhe-pc: the federated protocol of ``cgdcore.fhe`` driving the PC engine."""
    from .fhe.protocol import Settings
    from .fhe.run import fhe_pc, fhe_summary
    from .metrics import evaluate

    opts = dict(FHE_OPTIONS)
    options = dict(options or {})
    on_message = options.pop("on_message", None)  # a callable for status lines (the app's progress text)
    opts.update(options)  # checked against the registry by discover()
    ci_test = ci_test or "g2"
    if ci_test not in ("g2", "chi2"):
        raise UserError(f"fhe-pc evaluates the G² or χ² statistic under encryption; choose --ci-test g2 or chi2 "
                        f"(got {ci_test}).")
    alpha = validate_alpha(ALGO_DEFAULTS["fhe-pc"]["alpha"] if alpha is None else alpha)
    data, notes = prepare_data(dataset, ci_test, bins, private=opts["dp"] is not None)
    if data.n < 5:
        raise _too_few_rows(data.n)
    max_order = cap_max_order(max_order, data.d, notes)
    settings = Settings(mode=opts["mode"], statistic=ci_test, iterations=opts["nr_iterations"], r0=opts["r0"],
                        taylor_terms=opts["taylor_terms"], warm_c=opts["warm_c"], log_series=opts["log_series"])
    owners = opts["owners"]
    t0 = time.perf_counter()
    result, report, ledger = fhe_pc(data, owners=int(owners), split=opts["split"], split_seed=int(opts["split_seed"]),
                                    settings=settings, alpha=alpha, max_order=max_order, dp=opts["dp"], epsilon=epsilon,
                                    delta=ALGO_DEFAULTS["fhe-pc"]["delta"] if delta is None else delta, seed=seed,
                                    key_holder=int(opts["key_holder"]) - 1, progress=on_message,
                                    pc_progress=progress)
    metrics = evaluate(result.cpdag, data.truth) if data.truth is not None else None
    summary = fhe_summary(report, result.params)
    privacy: dict[str, Any] = {"model": "encrypted", "dp": opts["dp"], "epsilon": None, "delta": None,
                               "accounting": {}, "releases": 0, "sees": summary["sees"]}
    if ledger is not None:
        from .privacy import noise_info

        privacy.update(ledger.summary())
        privacy["model"] = "encrypted"
        privacy["noise"] = noise_info(seed)
    if report.get("overshoot", 0):
        notes.append(f"the warm start overshot (r0·x ≥ 2) in {report['overshoot']} slot(s): Newton–Raphson diverged "
                     "there; skewed splits make owners' guesses unrepresentative — use an iid split, a smaller "
                     "warm_c, or the paper mode.")
    return Discovery(dataset=data, algorithm="fhe-pc", params=dict(result.params), result=result, metrics=metrics,
                     seconds=time.perf_counter() - t0, notes=tuple(dataset.notes) + tuple(notes),
                     privacy=Privacy(privacy), ledger=ledger, fhe=FheDetails(report=report, summary=summary))
