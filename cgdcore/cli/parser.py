"""The argument parser of ``python -m cgdcore``: the five sub-commands and their flags, the algorithm options
generated from their declarations in :mod:`cgdcore.algorithms`."""
from __future__ import annotations

import argparse
import sys

from .arguments import finite, int_at_least, nonneg_int, positive_int, prob

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors: same format, exit code 2
        self.print_usage(sys.stderr)
        raise SystemExit(fail(f"{message} (see '{self.prog} --help')"))


def fail(msg: str) -> int:
    """Print the one-paragraph error message on stderr; the exit code of a user mistake."""
    print(f"error: {msg}", file=sys.stderr)
    return EXIT_USAGE


#: argument groups of the generated option flags, by algorithm family
_GROUPS = {"private-pc": "options of the private PC algorithms", "score": "options of NOTEARS and DP-NOTEARS",
           "fhe": "encrypted federated PC (--algo fhe-pc)"}


def _add_option_flags(q) -> None:
    """One flag per declared algorithm option (cgdcore.algorithms.PARAMS), grouped by the family that takes it;
    the values are checked against their declarations by ``discover``."""
    from ..algorithms import PARAMS, REGISTRY

    groups = {fam: q.add_argument_group(title) for fam, title in _GROUPS.items()}
    for p in PARAMS.values():
        if p.flag is None:
            continue
        users = [s for s in REGISTRY.values() if p.key in s.params]
        group = groups[users[0].family]
        default = "" if p.default is None else f" ({p.default:g})" if isinstance(p.default, float) else (
            f" ({p.default})")
        names = ", ".join(s.name for s in users)
        kw = {"choices": list(p.choices)} if p.choices else {
            "type": finite(p.flag) if p.kind == "float" else int_at_least(p.flag, -(10 ** 18))}
        group.add_argument(p.flag, dest=f"opt_{p.key}", default=None, help=f"{names}: {p.help}{default}",
                           metavar=None if p.choices else p.kind.upper(), **kw)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m cgdcore", description="Privacy-preserving causal discovery from the command line.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    q = sub.add_parser("datasets", help="list the available datasets")
    q.add_argument("--json", action="store_true", help="print JSON instead of a table")

    q = sub.add_parser("sample", help="sample a dataset to CSV")
    q.add_argument("--dataset", required=True, help="dataset spec, e.g. asia or synthetic:d=20,graph=sf")
    q.add_argument("--n", type=positive_int("--n"), default=None, help="rows to sample")
    q.add_argument("--seed", type=nonneg_int("--seed"), default=0)
    q.add_argument("--out", required=True, help="output CSV path ('-' for stdout)")
    q.add_argument("--codes", action="store_true", help="write integer state codes instead of state labels")

    q = sub.add_parser("discover", help="learn a causal graph")
    src = q.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help="dataset spec from 'datasets' (sampled or bundled)")
    src.add_argument("--data", help="a CSV file with a header row")
    q.add_argument("--n", type=positive_int("--n"), default=None, help="rows (sample size for networks)")
    q.add_argument("--seed", type=nonneg_int("--seed"), default=0)
    q.add_argument("--algo", default="pc")
    q.add_argument("--ci-test", choices=["kendall", "chi2", "g2", "fisherz"], default=None)
    q.add_argument("--alpha", type=prob("--alpha"), default=None,
                   help="significance level / threshold T on the p-value scale (default 0.05; 0.10 for "
                        "svt-pc, priv-pc and em-pc as in the Priv-PC code)")
    q.add_argument("--variant", choices=["stable", "original"], default="stable", help="skeleton search")
    q.add_argument("--orientation", choices=["standard", "priority", "conservative", "majority", "union"],
                   default=None,
                   help="v-structure rule: standard (sepset rule), priority (the sepset rule with priority to "
                        "existing colliders, causal-learn's uc_priority=2), conservative, majority, union (collider "
                        "iff in no separating set of the removal depth, as causal-learn's stable PC). Default: "
                        "union for pc on the stable skeleton without --ldp, standard otherwise")
    q.add_argument("--max-order", type=nonneg_int("--max-order"), default=None)
    q.add_argument("--kendall-sided", choices=["two", "one"], default=None,
                   help="two-sided p (default for pc) or the one-sided p of the Priv-PC reference code "
                        "(default for the private algorithms, whose thresholds are set on that scale)")
    q.add_argument("--bins", type=positive_int("--bins"), default=None,
                   help="bins for numeric columns when a discrete CI test is used (quantile bins for pc; equal-width "
                        "bins over the public ranges for private algorithms)")
    q.add_argument("--ranges", default=None, metavar="COL=LO:HI,...",
                   help="public ranges of numeric columns (known without looking at the data); private runs bin and "
                        "clip to them and refuse a numeric column without one (bundled datasets declare theirs)")
    q.add_argument("--epsilon", type=finite("--epsilon"), default=None,
                   help="total privacy budget: a hard cap the ledger enforces (private algorithms)")
    q.add_argument("--round-epsilon", type=finite("--round-epsilon"), default=None,
                   help="per-round ε of svt-pc, priv-pc and em-pc")
    q.add_argument("--delta", type=finite("--delta"), default=None,
                   help="the run's δ (advanced composition slack); default 1e-6 (the Priv-PC family's paper used "
                        "1e-3, above 1/n beyond 1,000 rows), 1e-10 for curate, 1e-5 for the score algorithms")
    q.add_argument("--noise-seed", type=nonneg_int("--noise-seed"), default=None,
                   help="seed of the privacy noise (default: fresh operating-system entropy, never reported); a "
                        "fixed seed makes the run a reproducible demo, not private against anyone who knows it")
    q.add_argument("--beta", type=finite("--beta"), default=None, help="CURATE margins β1 = β2 (0.2)")
    _add_option_flags(q)
    g = q.add_argument_group("local privacy (every record privatised before discovery)")
    g.add_argument("--ldp", metavar="MECH", default=None,
                   help="local mechanism: krr-cwise, krr-comb, geo-cwise or geo-comb")
    g.add_argument("--ldp-epsilon", type=finite("--ldp-epsilon"), default=None,
                   help="ε of the local mechanism (geometric: per unit of distance)")
    g.add_argument("--ldp-pmax", type=prob("--ldp-pmax"), default=None,
                   help="instead of ε: the chance of guessing a whole record in one try (the paper's privacy level)")
    g.add_argument("--ldp-seed", type=nonneg_int("--ldp-seed"), default=None,
                   help="seed of the privatisation (default: --noise-seed, itself fresh operating-system entropy "
                        "unless fixed); a fixed seed makes the run a reproducible demo, not private against anyone "
                        "who knows it")
    g.add_argument("--ldp-bins", type=positive_int("--ldp-bins"), default=None,
                   help="equal-width bins for numeric columns before privatising (10)")
    g.add_argument("--ldp-log", action="store_true", help="bin numeric columns on a log scale (as for Sachs)")
    g.add_argument("--debias", nargs="?", const="invert", choices=["invert", "ibu"], default=None,
                   help="PC with the channel-aware G-test: invert the channel (default) or IBU")
    g.add_argument("--calibration", choices=["bootstrap", "neff"], default=None,
                   help="de-biased p-values: parametric bootstrap with a scaled-χ² tail (default) or χ² at the effective n")
    g.add_argument("--bootstrap", type=positive_int("--bootstrap"), default=None,
                   help="bootstrap replicates per de-biased test (99)")
    q.add_argument("--json", action="store_true", help="print the JSON result object")
    q.add_argument("--trace", action="store_true",
                   help="with --json: add every CI query in the order asked (what was noised, its sensitivity, the "
                        "noise, the threshold, the decision and the ε it charged); diagnostics from the exact data, "
                        "not covered by ε: only the decisions and the Laplace/Gaussian noisy values are released")

    q = sub.add_parser("privatize", help="privatise every record of a dataset with a local-DP mechanism")
    src = q.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help="dataset spec from 'datasets'")
    src.add_argument("--data", help="a CSV file with a header row")
    q.add_argument("--n", type=positive_int("--n"), default=None, help="rows (sample size for networks)")
    q.add_argument("--mechanism", required=True, help="krr-cwise, krr-comb, geo-cwise or geo-comb")
    q.add_argument("--epsilon", type=finite("--epsilon"), default=None,
                   help="ε of the mechanism (geometric: per unit of distance)")
    q.add_argument("--p-max", type=prob("--p-max"), default=None,
                   help="instead of ε: the chance of guessing a whole record in one try")
    q.add_argument("--seed", type=nonneg_int("--seed"), default=None,
                   help="seed of the rows sampled from a bundled dataset (--dataset; 0); not of the noise")
    q.add_argument("--noise-seed", type=nonneg_int("--noise-seed"), default=None,
                   help="seed of the privatisation noise (default: fresh operating-system entropy, never reported); a "
                        "fixed seed makes the output a reproducible demo, not private against anyone who knows it")
    q.add_argument("--bins", type=positive_int("--bins"), default=10,
                   help="equal-width bins over each numeric column's public range (10)")
    q.add_argument("--ranges", default=None, metavar="COL=LO:HI,...",
                   help="public ranges of numeric columns, known without looking at the data (bundled datasets "
                        "declare theirs); values are clipped to them")
    q.add_argument("--log", action="store_true", help="bin numeric columns on a log scale")
    q.add_argument("--split", choices=["proportional", "uniform"], default="proportional",
                   help="k-RR C-wise / Geo C-wise ε split across columns")
    q.add_argument("--codes", action="store_true", help="write integer codes instead of state labels")
    q.add_argument("--out", required=True, help="output CSV path ('-' for stdout)")

    q = sub.add_parser("sweep", help="privacy-utility sweep: datasets × algorithms × ε × repetitions → tidy table")
    q.add_argument("--preset", help="start from a paper preset (see --list-presets); other flags override it")
    q.add_argument("--list-presets", action="store_true", help="list the presets and exit")
    q.add_argument("--dataset", help="dataset name(s), comma-separated (e.g. sachs or asia,child)")
    q.add_argument("--n", help="rows per dataset, comma-separated for several (e.g. 100000)")
    q.add_argument("--algos", help="algorithms, comma-separated: priv-pc,svt-pc,em-pc; options in brackets "
                                   "(priv-pc[subsample_ratio=1]); local privacy as pc+krr-comb")
    q.add_argument("--epsilons", help="ε grid: 0.1,1,10 or logspace:-2:1.5:21 (log10 start, stop, count)")
    q.add_argument("--reps", type=positive_int("--reps"), default=None, help="repetitions per ε (5)")
    q.add_argument("--seed", type=nonneg_int("--seed"), default=None,
                   help="root seed; every run's seed is spawned from it (0) and written in its row, so the rows are "
                        "reproducible experiments, not private releases: each ε is what the same run guarantees with "
                        "fresh noise")
    q.add_argument("--data-seed", type=nonneg_int("--data-seed"), default=None,
                   help="seed of the sampled rows, the same for every run (0)")
    q.add_argument("--budget", choices=["native", "total"], default=None,
                   help="native: the sparse-vector family reads ε per round (the papers' figures); total: ε "
                        "caps every algorithm")
    q.add_argument("--round-share", type=finite("--round-share"), default=None,
                   help="with --budget total: per-round ε of the sparse-vector family as a share of the cap (default: "
                        "the largest ε the filter admits a fixed number of times per pair of variables)")
    q.add_argument("--variant", choices=["stable", "original"], default=None, help="PC skeleton variant")
    q.add_argument("--alpha", type=prob("--alpha"), default=None, help="threshold (default: each paper's)")
    q.add_argument("--delta", type=prob("--delta"), default=None,
                   help="the private runs' δ (default: each algorithm's; the Priv-PC presets use the paper's 1e-3)")
    q.add_argument("--max-order", type=nonneg_int("--max-order"), default=None, help="largest conditioning set")
    q.add_argument("--jobs", type=int, default=1, help="worker processes (1 = this process; -1 = all cores)")
    q.add_argument("--backend", choices=["loky", "dask"], default="loky",
                   help="loky: local processes; dask: a Dask cluster (give --scheduler)")
    q.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    q.add_argument("--out", help="results file: .csv or .parquet (rows are saved as they finish)")
    q.add_argument("--no-resume", action="store_true", help="overwrite --out instead of continuing it")
    q.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p
