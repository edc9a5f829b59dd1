"""Every algorithm of the project and every option it takes, declared once.

Adding an algorithm = one policy module + one :class:`AlgorithmSpec` here (its options, if new, as
:class:`Param`). The CLI's flags, sweep-label parsing, re-run commands, ``discover``'s validation and the Discover
page's defaults are all read from these tables.
"""
from __future__ import annotations

from cgdcore.algorithms.spec import AlgorithmSpec, Param

_P = Param
#: Every algorithm option, by its ``options`` key.
PARAMS: dict[str, Param] = {p.key: p for p in (
    # the Kendall-based private PC family (cgdcore.central.build)
    _P("statistic", "choice", "sound", "Kendall statistic of the private algorithms: 'sound' (public normaliser, "
       "proven sensitivity 9/√n) or 'paper' (Priv-PC's, whose c1/√n is not a bound: no guarantee)",
       flag="--statistic", choices=("sound", "paper"), cite="Wang et al. 2020 §5.1"),
    _P("c1", "float", 6.0, "with statistic 'paper': Priv-PC's constant c1 in Δz = c1/√n (6 = reference code, "
       "4.5 = paper asymptotic)", flag="--c1", low=0.0, low_open=True, cite="Wang et al. 2020 Thm 5.2"),
    _P("composition", "choice", "advanced", "the budget filter's composition rule, fixed before the run (advanced or "
       "basic; gauss-pc composes in zcdp)", flag="--composition", choices=("advanced", "basic", "zcdp"),
       cite="Whitehouse et al. 2023"),
    _P("scale", "choice", "z", "what a private test noises: the statistic z with a critical value calibrated to the "
       "noise (z) or the p-value against the threshold, as in the papers (p)", flag="--scale", choices=("z", "p")),
    _P("sampler", "choice", "discrete", "noise of the Laplace-based algorithms: 'discrete' (exact discrete Laplace on "
       "a lattice, private in floating point) or 'plain' (numpy's floating-point Laplace as in the papers' code, which "
       "leaks through the gaps between doubles: no guarantee)", flag="--sampler", choices=("discrete", "plain"),
       cite="Canonne, Kamath & Steinke 2020; Mironov 2012"),
    _P("tweak", "float", 0.02, "Priv-PC's threshold tweak t", flag="--tweak", low=0.0, high=0.5,
       cite="Wang et al. 2020 Alg. 2"),
    _P("subsample_ratio", "float", None, "Priv-PC's sub-sampling ratio n/m (default: the optimum for the scale)",
       flag="--subsample-ratio", low=1.0, high=20.0, cite="Wang et al. 2020 §4.2"),
    _P("curate_sensitivity", "choice", "conservative", "CURATE's Δ: the proven conservative one or the paper's "
       "0.3627/√n (not a bound: no guarantee)", flag="--curate-sensitivity", choices=("conservative", "paper"),
       cite="Bhattacharjee & Tandon 2024 §IV"),
    _P("leakage", "choice", "sound", "CURATE's per-order leakage in its optimiser: the run's own filter (sound) or "
       "the paper's tε² form", flag="--leakage", choices=("sound", "paper"), cite="Bhattacharjee & Tandon 2024 eq. 9"),
    _P("beta1", "float", 0.2, "CURATE margin β1 (type I)", low=0.0, high=1.0, high_open=True,  # α(1 − β) > 0
       cite="Bhattacharjee & Tandon 2024 eq. 7"),
    _P("beta2", "float", 0.2, "CURATE margin β2 (type II)", low=0.0, high=1.0, high_open=True,  # α(1 − β) > 0
       cite="Bhattacharjee & Tandon 2024 eq. 7"),
    _P("max_flip_steps", "int", None, "EM-PC: the largest flip distance its utility searches", low=1),
    # score-based (cgdcore.score)
    _P("lambda1", "float", 0.1, "NOTEARS L1 penalty", flag="--lambda1", low=0.0, cite="Zheng et al. 2018 eq. 10"),
    _P("w_threshold", "float", 0.3, "NOTEARS: keep edges with |w| ≥ this, declared before the run",
       flag="--w-threshold", low=0.0),
    _P("release", "choice", "covariance", "DP-NOTEARS: one noisy release of the moments, then NOTEARS (covariance), "
       "or, as in NOLEAKS, noisy gradients (gradient: at two public points, with the column means released once to "
       "re-centre the fit)", flag="--release", choices=("covariance", "gradient")),
    _P("iterations", "int", 200, "gradient release: number of noisy gradient releases", flag="--iterations",
       low=1, high=100_000),
    _P("schedule", "choice", "multiplicative", "curate-score per-iteration budget schedule", flag="--schedule",
       choices=("additive", "exponential", "multiplicative", "geometric"), cite="Bhattacharjee & Tandon 2024 §V"),
    _P("ratio", "float", 1.05, "curate-score: growth ratio of the exponential and multiplicative schedules",
       low=1.0, low_open=True, cite="Bhattacharjee & Tandon 2024 §V"),
    _P("eps0", "float", None, "curate-score initial budget ε0 (default: the public rule for 200 iterations)",
       flag="--eps0", low=0.0, low_open=True),
    _P("clip", "float", 2.0, "gradient release: per-sample gradient clip", flag="--clip", low=0.0, low_open=True),
    _P("lr", "float", 0.02, "gradient release: Adam's learning rate (giving lr or outer runs the Adam path instead of the moment fit)", low=0.0, low_open=True),
    _P("outer", "int", 10, "gradient release: Adam's outer (augmented-Lagrangian) rounds (selects the Adam path)", low=1, high=1000),
    _P("standardise", "bool", None, "standardise the columns before fitting (default: for discrete data)"),
    # encrypted federated PC (cgdcore.fhe)
    _P("owners", "int", 3, "data owners", flag="--owners", low=2, high=10, cite="Yang et al. 2026 §III"),
    _P("split", "choice", "iid", "rows dealt to owners at random (iid) or Dirichlet-skewed on the first variable",
       flag="--owner-split", choices=("iid", "skewed")),
    _P("split_seed", "int", 0, "seed of the owners' row split (a public setting of the federation, apart from the "
       "DP variant's noise)", flag="--split-seed", low=0),
    _P("mode", "choice", "warm", "plaintext reference, numpy emulation, secure aggregation, the paper's encrypted "
       "statistic (10 NR iterations, Taylor-3) or the warm-started one", flag="--fhe-mode",
       choices=("plaintext", "emulate", "aggregate", "paper", "warm"), cite="Yang et al. 2026 §IV"),
    _P("nr_iterations", "int", None, "Newton–Raphson iterations of the encrypted reciprocal (paper 10, warm 4)",
       flag="--nr-iterations", low=1),
    _P("r0", "float", 1.0, "public initial guess of the reciprocal", flag="--r0", low=0.0, low_open=True),
    _P("taylor_terms", "int", 3, "terms of the log series", flag="--taylor-terms", low=1),
    _P("log_series", "choice", None, "G²'s log: the paper's Taylor series around 1, or 2·atanh((r−1)/(r+1)) "
       "(warm default)", flag="--log-series", choices=("taylor", "atanh")),
    _P("warm_c", "float", 0.7, "warm-start guess factor c", flag="--warm-c", low=0.0, low_open=True),
    _P("dp", "choice", None, "DP variant: every owner adds exact discrete Laplace noise to its joint histogram once "
       "(ε in total), or the paper's noise on every count (uncapped: its bound at the most tests is reported)",
       flag="--fhe-dp", choices=("once", "per-count")),
    _P("key_holder", "int", 1, "which owner holds the secret key", flag="--key-holder", low=1),
)}

_KENDALL = ("statistic", "c1", "composition", "scale", "sampler")
_GRADIENT = ("iterations", "clip", "lr", "outer")
_FHE = ("owners", "split", "split_seed", "mode", "nr_iterations", "r0", "taylor_terms", "log_series", "warm_c", "dp",
        "key_holder")

_S = AlgorithmSpec
#: The δ of Priv-PC's paper (Wang, Pang & Song 2020 §5: "We fix δ = 1e-3 for both EM-PC and Priv-PC"; its reference
#: code hard-codes it), which the "as in paper" runs and presets use. The sparse-vector family's default is 1e-6, as
#: Gauss-PC's: at 1e-3 a run on more than 1,000 rows has δ above 1/n, which a mechanism publishing one row in full
#: would meet, and runs compared at the same ε would not be compared at the same δ.
PAPER_DELTA = 1e-3

#: Every algorithm, by name, in the order pages and help list them.
REGISTRY: dict[str, AlgorithmSpec] = {s.name: s for s in (
    _S("pc", "PC", "pc", "none", "PC (non-private): every CI decision is the plain test p ≥ α",
       "Spirtes, Glymour & Scheines 2000; Colombo & Maathuis 2014", alpha=0.05, delta=None),
    _S("laplace-pc", "Laplace-PC", "private-pc", "total",
       "Laplace-PC: every CI decision noised with Laplace; the total ε is split across PC orders",
       "Wang et al. 2020 §3 (baseline)", alpha=0.05, delta=1e-6, ci_tests=("kendall",), params=_KENDALL),
    _S("gauss-pc", "Gauss-PC", "private-pc", "zcdp",
       "Gauss-PC: one release per edge and order — the smallest |z| over its candidate separating sets plus a "
       "(discrete) Gaussian — composed in zCDP so k releases cost √k; the total ε is planned order by order",
       "Bun & Steinke 2016; Canonne, Kamath & Steinke 2020", alpha=0.05, delta=1e-6, ci_tests=("kendall", "g2"),
       params=("statistic", "c1", "composition")),
    _S("svt-pc", "SVT-PC", "private-pc", "round",
       "SVT-PC: textbook sparse vector (AboveThreshold) over all CI tests; ε per deleted edge",
       "Wang et al. 2020 §3; Dwork & Roth 2014 Alg. 1", alpha=0.10, delta=1e-6, ci_tests=("kendall",),
       params=_KENDALL),
    _S("priv-pc", "Priv-PC", "private-pc", "round",
       "Priv-PC (Wang et al. 2020): sieve on a sub-sample, examine on the full data; ε per round",
       "Wang et al. 2020 Alg. 2", alpha=0.10, delta=1e-6, ci_tests=("kendall",),
       params=(*_KENDALL, "tweak", "subsample_ratio")),
    _S("em-pc", "EM-PC", "private-pc", "round",
       "EM-PC (Xu et al. 2017): per node and order, the exponential mechanism picks how many and which edges to "
       "delete", "Xu et al. 2017", alpha=0.10, delta=1e-6, ci_tests=("g2",),
       params=("composition", "max_flip_steps")),
    _S("curate", "CURATE", "private-pc", "total",
       "CURATE (Bhattacharjee & Tandon 2024): Laplace test with margins; per-order budgets optimised by SLSQP after "
       "every order", "Bhattacharjee & Tandon 2024 §IV", alpha=0.05, delta=1e-10, ci_tests=("kendall",),
       params=(*_KENDALL, "curate_sensitivity", "leakage", "beta1", "beta2")),
    _S("notears", "NOTEARS", "score", "none",
       "NOTEARS (Zheng et al. 2018): linear SEM fitted under a smooth acyclicity constraint (non-private)",
       "Zheng et al. 2018", alpha=0.05, delta=None, params=("lambda1", "w_threshold", "standardise")),
    _S("noleaks", "DP-NOTEARS", "score", "zcdp",
       "DP-NOTEARS: one discrete-Gaussian release of the data's moments, then NOTEARS on them (or, as in NOLEAKS, "
       "per-sample clipped noisy gradients and the column means); composed in zCDP", "Wang, Pang & Gu 2020 (NOLEAKS)",
       alpha=0.05, delta=1e-5, params=("lambda1", "w_threshold", "standardise", "release", *_GRADIENT)),
    _S("curate-score", "CURATE-score", "score", "zcdp",
       "CURATE score-based: DP-NOTEARS's gradient releases with additive / exponential / multiplicative / geometric "
       "per-iteration budgets (and the column means released once)",
       "Bhattacharjee & Tandon 2024 §V", alpha=0.05, delta=1e-5,
       params=("lambda1", "w_threshold", "standardise", "schedule", "ratio", "eps0", *_GRADIENT)),
    _S("fhe-pc", "Encrypted PC", "fhe", "optional",
       "Encrypted federated PC (Yang et al. 2026): owners' counts under CKKS, χ²/G² evaluated by the server on "
       "ciphertexts; optional DP variant", "Yang et al. 2026", alpha=0.05, delta=1e-6, ci_tests=("g2", "chi2"),
       params=_FHE),
)}

assert all(k in PARAMS for s in REGISTRY.values() for k in s.params)
