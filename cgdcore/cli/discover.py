"""``discover``: learn a causal graph and print it (or the JSON result object of DESIGN.md)."""
from __future__ import annotations

import json

from .. import UserError
from .summary import fhe_summary, local_summary
from .tables import load


def run(args) -> int:
    from ..algorithms import REGISTRY
    from ..discover import discover

    if args.algo not in REGISTRY:
        raise UserError(f"unknown or unavailable algorithm {args.algo!r}; available: {', '.join(REGISTRY)}.")
    if args.algo == "fhe-pc" and args.epsilon is not None and args.opt_dp is None:
        raise UserError("--epsilon applies to fhe-pc only with its DP variant: add --fhe-dp once (or per-count).")
    if args.algo == "pc" and any(v is not None for v in (args.epsilon, args.round_epsilon, args.delta)):
        raise UserError("--epsilon/--round-epsilon/--delta apply to private algorithms; 'pc' is not private. "
                        "Drop them or choose a private --algo.")
    if args.data and args.n is not None:
        raise UserError("--n applies to sampled datasets (--dataset); a CSV given with --data is used whole.")
    from ..algorithms import PARAMS, check_options

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
    ds = load(args)
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
        print(fhe_summary(out["fhe"]))
    if out["privacy"] and out["privacy"].get("model") == "local":
        pv = out["privacy"]
        print(local_summary(pv))
        if pv.get("noise"):
            print(f"  noise: {pv['noise']['note']}")
    elif out["privacy"] and "statement" not in out["privacy"]:
        pass  # encrypted without DP: nothing to account
    elif out["privacy"]:
        from ..privacy.ledger import weakness

        pv = out["privacy"]
        print(f"privacy: {pv['statement']}")
        weak = weakness(pv["epsilon"], pv["delta"], out["n"]) if pv.get("guarantee") else ""
        if weak:  # the app's words for a guarantee that protects little (ε above 10, δ above 1/n)
            print(f"  {weak}")
        used = pv.get("used")
        if used and pv.get("guarantee"):
            print(f"  the filter used ε={used['epsilon']:.4g} of it ({pv['releases']:,} release"
                  f"{'s' if pv['releases'] != 1 else ''}, {pv['rule']} rule)")
        elif used:  # no guarantee: what the ledger recorded is no bound on anything
            print(f"  the ledger recorded ε={used['epsilon']:.4g} over {pv['releases']} releases ({pv['rule']} rule): "
                  "not a guarantee")
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
