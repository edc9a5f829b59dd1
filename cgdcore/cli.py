"""``python -m cgdcore`` — the command-line contract of DESIGN.md.

Every user mistake ends with a one-paragraph message on stderr and exit code 2; no
traceback is ever printed. Heavy modules (pandas, scipy) are imported only by the
commands that need them, so ``datasets`` starts fast.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

from . import UserError

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors: same format, exit code 2
        self.print_usage(sys.stderr)
        raise SystemExit(_fail(f"{message} (see '{self.prog} --help')"))


def _fail(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return EXIT_USAGE


def _int_at_least(name, lowest):
    def conv(s):
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number (got {s!r})") from None
        if v < lowest:
            raise argparse.ArgumentTypeError(f"{name} must be at least {lowest} (got {v})")
        return v
    return conv


def _positive_int(name):
    return _int_at_least(name, 1)


def _nonneg_int(name):
    return _int_at_least(name, 0)


def _prob(name):
    number = _finite(name)

    def conv(s):
        v = number(s)
        if not (0.0 < v < 1.0):
            raise argparse.ArgumentTypeError(f"{name} must be strictly between 0 and 1 (got {s})")
        return v
    return conv


def _finite(name):
    def conv(s):
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number (got {s!r})") from None
        if math.isnan(v):
            raise argparse.ArgumentTypeError(f"{name} must be a number (got NaN)")
        return v
    return conv

#: argument groups of the generated option flags, by algorithm family
_GROUPS = {"private-pc": "options of the private PC algorithms", "score": "options of NOTEARS and DP-NOTEARS",
           "fhe": "encrypted federated PC (--algo fhe-pc)"}


def _add_option_flags(q) -> None:
    """One flag per declared algorithm option (cgdcore.algorithms.PARAMS), grouped by the family that takes it;
    the values are checked against their declarations by ``discover``."""
    from .algorithms import PARAMS, REGISTRY

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
            "type": _finite(p.flag) if p.kind == "float" else _int_at_least(p.flag, -(10 ** 18))}
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
    q.add_argument("--n", type=_positive_int("--n"), default=None, help="rows to sample")
    q.add_argument("--seed", type=_nonneg_int("--seed"), default=0)
    q.add_argument("--out", required=True, help="output CSV path ('-' for stdout)")
    q.add_argument("--codes", action="store_true", help="write integer state codes instead of state labels")

    q = sub.add_parser("discover", help="learn a causal graph")
    src = q.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help="dataset spec from 'datasets' (sampled or bundled)")
    src.add_argument("--data", help="a CSV file with a header row")
    q.add_argument("--n", type=_positive_int("--n"), default=None, help="rows (sample size for networks)")
    q.add_argument("--seed", type=_nonneg_int("--seed"), default=0)
    q.add_argument("--algo", default="pc")
    q.add_argument("--ci-test", choices=["kendall", "chi2", "g2", "fisherz"], default=None)
    q.add_argument("--alpha", type=_prob("--alpha"), default=None,
                   help="significance level / threshold T on the p-value scale (default 0.05; 0.10 for "
                        "svt-pc, priv-pc and em-pc as in the Priv-PC code)")
    q.add_argument("--variant", choices=["stable", "original"], default="stable", help="skeleton search")
    q.add_argument("--orientation", choices=["standard", "priority", "conservative", "majority", "union"],
                   default=None,
                   help="v-structure rule: standard (sepset rule), priority (the sepset rule with priority to "
                        "existing colliders, causal-learn's uc_priority=2), conservative, majority, union (collider "
                        "iff in no separating set of the removal depth, as causal-learn's stable PC). Default: "
                        "union for pc on the stable skeleton without --ldp, standard otherwise")
    q.add_argument("--max-order", type=_nonneg_int("--max-order"), default=None)
    q.add_argument("--kendall-sided", choices=["two", "one"], default=None,
                   help="two-sided p (default for pc) or the one-sided p of the Priv-PC reference code "
                        "(default for the private algorithms, whose thresholds are set on that scale)")
    q.add_argument("--bins", type=_positive_int("--bins"), default=None,
                   help="bins for numeric columns when a discrete CI test is used (quantile bins for pc; equal-width "
                        "bins over the public ranges for private algorithms)")
    q.add_argument("--ranges", default=None, metavar="COL=LO:HI,...",
                   help="public ranges of numeric columns (known without looking at the data); private runs bin and "
                        "clip to them and refuse a numeric column without one (bundled datasets declare theirs)")
    q.add_argument("--epsilon", type=_finite("--epsilon"), default=None,
                   help="total privacy budget: a hard cap the ledger enforces (private algorithms)")
    q.add_argument("--round-epsilon", type=_finite("--round-epsilon"), default=None,
                   help="per-round ε of svt-pc, priv-pc and em-pc")
    q.add_argument("--delta", type=_finite("--delta"), default=None,
                   help="the run's δ (advanced composition slack); default 1e-3 for the Priv-PC family, "
                        "1e-6 for laplace-pc, 1e-10 for curate")
    q.add_argument("--noise-seed", type=_nonneg_int("--noise-seed"), default=None,
                   help="seed of the privacy noise (default: fresh operating-system entropy, never reported); a "
                        "fixed seed makes the run a reproducible demo, not private against anyone who knows it")
    q.add_argument("--beta", type=_finite("--beta"), default=None, help="CURATE margins β1 = β2 (0.2)")
    _add_option_flags(q)
    g = q.add_argument_group("local privacy (every record privatised before discovery)")
    g.add_argument("--ldp", metavar="MECH", default=None,
                   help="local mechanism: krr-cwise, krr-comb, geo-cwise or geo-comb")
    g.add_argument("--ldp-epsilon", type=_finite("--ldp-epsilon"), default=None,
                   help="ε of the local mechanism (geometric: per unit of distance)")
    g.add_argument("--ldp-pmax", type=_prob("--ldp-pmax"), default=None,
                   help="instead of ε: the chance of guessing a whole record in one try (the paper's privacy level)")
    g.add_argument("--ldp-seed", type=_nonneg_int("--ldp-seed"), default=None,
                   help="seed of the privatisation (default: --seed)")
    g.add_argument("--ldp-bins", type=_positive_int("--ldp-bins"), default=None,
                   help="equal-width bins for numeric columns before privatising (10)")
    g.add_argument("--ldp-log", action="store_true", help="bin numeric columns on a log scale (as for Sachs)")
    g.add_argument("--debias", nargs="?", const="invert", choices=["invert", "ibu"], default=None,
                   help="PC with the channel-aware G-test: invert the channel (default) or IBU")
    g.add_argument("--calibration", choices=["bootstrap", "neff"], default=None,
                   help="de-biased p-values: parametric bootstrap with a scaled-χ² tail (default) or χ² at the effective n")
    g.add_argument("--bootstrap", type=_positive_int("--bootstrap"), default=None,
                   help="bootstrap replicates per de-biased test (99)")
    q.add_argument("--json", action="store_true", help="print the JSON result object")
    q.add_argument("--trace", action="store_true",
                   help="with --json: add every CI query in the order asked (what was noised, its sensitivity, the "
                        "noise, the threshold, the decision and the ε it charged)")

    q = sub.add_parser("privatize", help="privatise every record of a dataset with a local-DP mechanism")
    src = q.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help="dataset spec from 'datasets'")
    src.add_argument("--data", help="a CSV file with a header row")
    q.add_argument("--n", type=_positive_int("--n"), default=None, help="rows (sample size for networks)")
    q.add_argument("--mechanism", required=True, help="krr-cwise, krr-comb, geo-cwise or geo-comb")
    q.add_argument("--epsilon", type=_finite("--epsilon"), default=None,
                   help="ε of the mechanism (geometric: per unit of distance)")
    q.add_argument("--p-max", type=_prob("--p-max"), default=None,
                   help="instead of ε: the chance of guessing a whole record in one try")
    q.add_argument("--seed", type=_nonneg_int("--seed"), default=0, help="seed of the data and of the noise")
    q.add_argument("--bins", type=_positive_int("--bins"), default=10,
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
    q.add_argument("--reps", type=_positive_int("--reps"), default=None, help="repetitions per ε (5)")
    q.add_argument("--seed", type=_nonneg_int("--seed"), default=None,
                   help="root seed; every run's seed is spawned from it (0)")
    q.add_argument("--data-seed", type=_nonneg_int("--data-seed"), default=None,
                   help="seed of the sampled rows, the same for every run (0)")
    q.add_argument("--budget", choices=["native", "total"], default=None,
                   help="native: the sparse-vector family reads ε per round (the papers' figures); total: ε "
                        "caps every algorithm")
    q.add_argument("--round-share", type=_finite("--round-share"), default=None,
                   help="with --budget total: per-round ε of the sparse-vector family as a share of the cap (default: "
                        "the largest ε the filter admits a fixed number of times per pair of variables)")
    q.add_argument("--variant", choices=["stable", "original"], default=None, help="PC skeleton variant")
    q.add_argument("--alpha", type=_prob("--alpha"), default=None, help="threshold (default: each paper's)")
    q.add_argument("--max-order", type=_nonneg_int("--max-order"), default=None, help="largest conditioning set")
    q.add_argument("--jobs", type=int, default=1, help="worker processes (1 = this process; -1 = all cores)")
    q.add_argument("--backend", choices=["loky", "dask"], default="loky",
                   help="loky: local processes; dask: a Dask cluster (give --scheduler)")
    q.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    q.add_argument("--out", help="results file: .csv or .parquet (rows are saved as they finish)")
    q.add_argument("--no-resume", action="store_true", help="overwrite --out instead of continuing it")
    q.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


def cmd_sweep(args) -> int:
    import time

    from .experiments import SweepSpec, parse_epsilon_grid, run_sweep, split_labels
    from .experiments.presets import PRESETS, get_preset

    if args.list_presets:
        for p in PRESETS.values():
            s = p.spec
            print(f"{p.name:<14} {p.title}\n{'':<14} {len(s.datasets)} dataset(s) × {len(s.algorithms)} "
                  f"algorithm(s) × {len(s.epsilons)} ε × {s.reps} reps = {p.runs()} runs; {p.source}")
        return 0
    fields: dict = {}
    if args.dataset:
        fields["datasets"] = tuple(d.strip() for d in args.dataset.split(",") if d.strip())
    if args.n:
        try:
            fields["n"] = tuple(int(v) for v in args.n.split(","))
        except ValueError:
            raise UserError(f"--n {args.n!r}: give whole numbers separated by commas.") from None
    if args.algos:
        fields["algorithms"] = tuple(split_labels(args.algos))
    if args.epsilons:
        fields["epsilons"] = parse_epsilon_grid(args.epsilons)
    for name in ("reps", "seed", "data_seed", "budget", "round_share", "variant", "alpha", "max_order"):
        if getattr(args, name) is not None:
            fields[name] = getattr(args, name)
    if args.preset:
        spec = get_preset(args.preset, **fields).spec
    else:
        missing = [f for f, k in (("--dataset", "datasets"), ("--algos", "algorithms")) if k not in fields]
        if missing:
            raise UserError(f"sweep needs {' and '.join(missing)} (or --preset NAME; see --list-presets).")
        fields.setdefault("epsilons", ())
        spec = SweepSpec(**fields)
    if args.backend == "dask" and not args.scheduler:
        raise UserError("--backend dask needs --scheduler tcp://HOST:PORT (the address `dask scheduler` prints).")
    if args.out and args.out != "-" and not args.out.lower().endswith((".csv", ".parquet", ".pq")):
        raise UserError(f"--out {args.out!r}: name the results file .csv or .parquet.")
    total = len(spec.runs())
    last = [0.0]
    t0 = time.perf_counter()

    def progress(done, total, eta, row):
        now = time.perf_counter()
        if args.quiet or (now - last[0] < 1.0 and done < total):
            return
        last[0] = now
        left = "" if eta is None else f", about {eta:.0f} s left"
        print(f"  {done}/{total} runs{left}", file=sys.stderr)

    if not args.quiet:
        print(f"sweep {spec.key}: {total} runs ({args.backend}, jobs {args.jobs})", file=sys.stderr)
    out = None if args.out in (None, "-") else args.out
    df = run_sweep(spec, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, out=out,
                   resume=not args.no_resume, progress=progress)
    failed = df[df["error"].notna()]
    if out is None:
        df.to_csv(sys.stdout, index=False)
    if not args.quiet:
        where = f" to {out}" if out else ""
        print(f"wrote {len(df)} rows{where} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if len(failed):
        first = failed.iloc[0]
        print(f"{len(failed)} run(s) were rejected (see the 'error' column), e.g. {first['algorithm']} on "
              f"{first['dataset']}: {first['error']}", file=sys.stderr)
    return 0


def cmd_datasets(args) -> int:
    from .data import list_datasets

    infos = list_datasets()
    if args.json:
        print(json.dumps([_info_dict(i) for i in infos], indent=2))
        return 0
    rows = [("name", "kind", "vars", "rows", "truth", "description")]
    for i in infos:
        rows.append((i.name, i.kind, str(i.n_vars), "sampled" if i.n_rows is None else str(i.n_rows),
                     i.truth or "-", i.description))
    widths = [max(len(r[c]) for r in rows) for c in range(5)]
    for r in rows:
        print("  ".join(r[c].ljust(widths[c]) for c in range(5)) + "  " + r[5])
    return 0


def _info_dict(i) -> dict:
    from dataclasses import asdict

    return asdict(i)


def _load(args, min_columns: int = 2):
    from .data import load_dataset

    if getattr(args, "data", None):
        from .data.tabular import load_csv

        ds = load_csv(args.data, min_columns=min_columns)
    else:
        ds = load_dataset(args.dataset, n=args.n, seed=args.seed)
    if getattr(args, "ranges", None):
        from .data.tabular import parse_ranges

        ds = ds.with_ranges(parse_ranges(args.ranges, ds.variables))
    return ds


def cmd_sample(args) -> int:
    ds = _load(args)
    _write_table(ds, args.out, args.codes)
    if args.out != "-":
        print(f"wrote {ds.n} rows × {ds.d} columns of {ds.name} to {args.out}", file=sys.stderr)
    return 0


def cmd_discover(args) -> int:
    from .algorithms import REGISTRY
    from .discover import discover

    if args.algo not in REGISTRY:
        raise UserError(f"unknown or unavailable algorithm {args.algo!r}; available: {', '.join(REGISTRY)}.")
    if args.algo == "fhe-pc" and args.epsilon is not None and args.opt_dp is None:
        raise UserError("--epsilon applies to fhe-pc only with its DP variant: add --fhe-dp once (or per-count).")
    if args.algo == "pc" and any(v is not None for v in (args.epsilon, args.round_epsilon, args.delta)):
        raise UserError("--epsilon/--round-epsilon/--delta apply to private algorithms; 'pc' is not private. "
                        "Drop them or choose a private --algo.")
    if args.data and args.n is not None:
        raise UserError("--n applies to sampled datasets (--dataset); a CSV given with --data is used whole.")
    from .algorithms import PARAMS, check_options

    options = {p.key: getattr(args, f"opt_{p.key}") for p in PARAMS.values()
               if p.flag is not None and getattr(args, f"opt_{p.key}") is not None}
    if args.beta is not None:
        options["beta1"] = options["beta2"] = args.beta
    options = check_options(args.algo, options, name=lambda p: p.flag or ("--beta" if p.key.startswith("beta") else p.key),
                            algo_name=lambda a: f"--algo {a}")
    ldp = None
    ldp_flags = (args.ldp_epsilon, args.ldp_pmax, args.ldp_seed, args.ldp_bins, args.debias, args.calibration,
                 args.bootstrap)
    if args.ldp is None and (any(v is not None for v in ldp_flags) or args.ldp_log):
        raise UserError("--ldp-epsilon, --ldp-pmax, --debias and the other local-privacy options need --ldp MECH.")
    if args.ldp is not None:
        if (args.calibration or args.bootstrap) and not args.debias:
            raise UserError("--calibration and --bootstrap apply to de-biased tests: add --debias.")
        ldp = {"mechanism": args.ldp, "epsilon": args.ldp_epsilon, "p_max": args.ldp_pmax, "seed": args.ldp_seed,
               "bins": args.ldp_bins, "log": args.ldp_log, "debias": args.debias, "calibration": args.calibration,
               "n_boot": args.bootstrap}
    ds = _load(args)
    res = discover(ds, algo=args.algo, ci_test=args.ci_test, alpha=args.alpha, variant=args.variant,
                   orientation=args.orientation, max_order=args.max_order, kendall_sided=args.kendall_sided,
                   bins=args.bins, epsilon=args.epsilon, round_epsilon=args.round_epsilon, delta=args.delta,
                   seed=args.noise_seed, options=options, ldp=ldp)
    if args.trace and not args.json:
        raise UserError("--trace adds the CI queries to the JSON output: use it with --json.")
    out = res.to_json(trace=args.trace)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    how = (f"CI test {out['params']['ci_test']}, alpha={out['params']['alpha']}" if "ci_test" in out["params"]
           else f"λ1={out['params']['lambda1']}, w_threshold={out['params']['w_threshold']}")
    print(f"{out['algorithm']} on {out['dataset']} (n={out['n']}, {len(out['variables'])} variables), {how}")
    for e in out["edges"]:
        print(f"  {e['source']} {'->' if e['directed'] else '--'} {e['target']}")
    if out["metrics"]:
        m = out["metrics"]
        print(f"skeleton P/R/F1 {m['skeleton_precision']:.3f}/{m['skeleton_recall']:.3f}/{m['skeleton_f1']:.3f}  "
              f"arc F1 {m['arc_f1']:.3f}  SHD {m['shd']}  (truth: {out['truth']['name']})")
    if out.get("fhe"):
        print(_fhe_summary(out["fhe"]))
    if out["privacy"] and out["privacy"].get("model") == "local":
        pv = out["privacy"]
        print(_local_summary(pv))
    elif out["privacy"] and out["privacy"].get("epsilon") is None:
        pass  # encrypted without DP: nothing to account
    elif out["privacy"]:
        pv = out["privacy"]
        print(f"privacy: {pv['statement']}")
        used = pv.get("used")
        if used:
            print(f"  the filter used ε={used['epsilon']:.4g} of it ({pv['releases']} releases, {pv['rule']} rule)")
        for name, t in pv["accounting"].items():
            print(f"  {name:<55s} ε={t['epsilon']:<10.4g} δ={t['delta']:.3g}  [{t['status']}]")
        noise = pv.get("noise")
        if noise:
            print(f"  noise: {noise['note']}")
    if out["stopped_early"]:
        print(f"stopped early: {out['stop_reason']}")
    print(f"{out['n_ci_tests']} CI tests (per order: {out['tests_per_order']}) in {out['seconds']:.3f} s")
    for note in out["notes"]:
        print(f"note: {note}")
    return 0


def _fhe_summary(f: dict) -> str:
    from .fhe.run import comparison

    sec = f["seconds"]
    mb = lambda b: b / 1e6  # noqa: E731
    cmp = comparison(f)
    tag = f" ({cmp['note']})" if "note" in cmp else ""
    lines = [f"federation: {f['owners']} owners (rows {f['owner_rows']}), mode {f['mode']}; CI decisions agree with "
             f"plaintext on {100 * cmp['agreement']:.1f}%"
             + ("" if cmp["shd_vs_plaintext"] is None else f", SHD vs the plaintext graph {cmp['shd_vs_plaintext']}")
             + tag]
    agree = {lv["order"]: lv["agreement"] for lv in cmp["levels"]}
    for lv in f["levels"]:
        lines.append(f"  order {lv['order']}: {lv['tests']} tests in {lv['slots']} slots, agreement "
                     f"{100 * agree[lv['order']]:.1f}%" + (f", max r0·x {lv['max_r0x']:.2f}" if "max_r0x" in lv
                                                           else ""))
    lines.append(f"  time: keygen {sec['keygen']:.2f} s, count {sec['count']:.2f} s, encrypt {sec['encrypt']:.2f} s, "
                 f"server {sec['compute']:.2f} s, decrypt {sec['decrypt']:.2f} s")
    if f["ckks"]:
        b = f["bytes"]
        lines.append(f"  CKKS {f['ckks']}; public context {mb(b['public_context']):.1f} MB, upload per owner "
                     f"{mb(max(b['upload_per_owner'])):.1f} MB, results {mb(b['results']):.2f} MB, "
                     f"{f['ciphertexts']} ciphertexts")
    if f.get("memory_added_mb") is not None:
        lines.append(f"  memory the run added at its peak: {f['memory_added_mb']:.0f} MB (resident, over its start)")
    return "\n".join(lines)


def _local_summary(pv: dict) -> str:
    exact = "" if pv["epsilon_exact"] else " (upper bound)"
    return (f"local privacy: {pv['mechanism']} at {pv['parameter']} = {pv['value']:g}; true ε-LDP per record "
            f"{pv['epsilon']:.4g}{exact}; chance of guessing a whole record {pv['vulnerability']:.4g}")


def _write_table(ds, path: str, codes: bool) -> None:
    try:
        ds.to_frame(codes).to_csv(sys.stdout if path == "-" else path, index=False)
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror or e}. Choose a writable path.") from None


def cmd_privatize(args) -> int:
    from .local.privatize import privatize

    if args.data and args.n is not None:
        raise UserError("--n applies to sampled datasets (--dataset); a CSV given with --data is used whole.")
    ds = _load(args, min_columns=1)
    priv, release = privatize(ds, args.mechanism, epsilon=args.epsilon, p_max=args.p_max, seed=args.seed,
                              split=args.split, bins=args.bins, log=args.log)
    _write_table(priv, args.out, args.codes)
    msg = _local_summary(release.privacy())
    print(msg, file=sys.stderr)
    if args.out != "-":
        print(f"wrote {priv.n} privatised rows × {priv.d} columns to {args.out}", file=sys.stderr)
    return 0


#: discover() keyword -> its flag, in the order a command names them
_RUN_FLAGS = (("algo", "--algo"), ("ci_test", "--ci-test"), ("alpha", "--alpha"), ("variant", "--variant"),
              ("orientation", "--orientation"), ("max_order", "--max-order"), ("kendall_sided", "--kendall-sided"),
              ("bins", "--bins"), ("ranges", "--ranges"), ("epsilon", "--epsilon"),
              ("round_epsilon", "--round-epsilon"), ("delta", "--delta"), ("seed", "--noise-seed"))
#: local-privacy keys of discover(ldp=...) -> their flags
_LDP_FLAGS = {"mechanism": "--ldp", "epsilon": "--ldp-epsilon", "p_max": "--ldp-pmax", "seed": "--ldp-seed",
              "bins": "--ldp-bins", "debias": "--debias", "calibration": "--calibration", "n_boot": "--bootstrap"}


def command_line(dataset: str, n: int | None, params, *, data_seed: int | None = None) -> str | None:
    """The ``python -m cgdcore discover`` command that makes the same call as ``discover(dataset, **params)`` on the dataset
    spec ``dataset`` (``upload:FILE`` for a user's file) with ``n`` sampled rows; None when an option has no flag
    (reproducible from Python only). Used wherever a result shows how to reproduce it."""
    import shlex

    from .algorithms import flag_of
    from .discover import default_orientation

    if dataset.startswith("upload:"):
        parts = ["python -m cgdcore discover", f"--data {shlex.quote(dataset.split(':', 1)[1])}"]
    else:
        parts = ["python -m cgdcore discover", f"--dataset {shlex.quote(dataset)}"]
        parts += [f"--n {n}"] if n else []
        parts += [f"--seed {data_seed}"] if data_seed is not None else []
    for key, flag in _RUN_FLAGS:
        v = params.get(key)
        if v is not None and not (key == "variant" and v == "stable") and not (key == "orientation" and v == (
                default_orientation(params.get("algo") or "pc", params.get("variant") or "stable", params.get("ldp")))):
            parts.append(f"{flag} {shlex.quote(str(v))}")
    opts = {k: v for k, v in dict(params.get("options") or {}).items() if v is not None and not callable(v)}
    if "beta1" in opts or "beta2" in opts:
        if opts.get("beta1") != opts.get("beta2"):
            return None
        parts.append(f"--beta {opts.pop('beta1')}")
        opts.pop("beta2", None)
    for k, v in opts.items():
        flag = flag_of(k)
        if flag is None:
            return None
        parts.append(f"{flag} {shlex.quote(str(v))}")
    for k, v in dict(params.get("ldp") or {}).items():
        if v is None or v is False:
            continue
        if k == "log":
            parts.append("--ldp-log")
        elif k in _LDP_FLAGS:
            parts.append(f"{_LDP_FLAGS[k]} {shlex.quote(str(v))}")
        else:
            return None
    return " ".join(parts)


COMMANDS = {"datasets": cmd_datasets, "sample": cmd_sample, "discover": cmd_discover, "privatize": cmd_privatize,
            "sweep": cmd_sweep}


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return COMMANDS[args.command](args)
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else _fail(e.code)
    except UserError as e:
        return _fail(str(e))
    except MemoryError:
        return _fail("out of memory: try fewer rows (--n) or a smaller maximum order (--max-order).")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # an internal bug: short message, no traceback
        print(f"internal error ({type(e).__name__}): {e}. Please report it with the command you ran.", file=sys.stderr)
        return 1


def run() -> None:
    """The ``cgdcore`` console script (``pip install -e .``): the same as ``python -m cgdcore``."""
    sys.exit(main())
