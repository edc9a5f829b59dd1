"""``sweep``: a privacy-utility sweep (datasets × algorithms × ε × repetitions) to a tidy table."""
from __future__ import annotations

import sys

from .. import UserError


def run(args) -> int:
    import time

    from ..experiments import SweepSpec, parse_epsilon_grid, run_sweep, split_labels
    from ..experiments.presets import PRESETS, get_preset

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
    for name in ("reps", "seed", "data_seed", "budget", "round_share", "variant", "alpha", "max_order", "delta"):
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
