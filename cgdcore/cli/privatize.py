"""``privatize``: every record of a dataset through a local-DP mechanism, to CSV."""
from __future__ import annotations

import sys

from .. import UserError
from .summary import local_summary
from .tables import load, write_table


def run(args) -> int:
    from ..local.privatize import privatize

    if args.data and args.n is not None:
        raise UserError("--n applies to sampled datasets (--dataset); a CSV given with --data is used whole.")
    seeded_file = bool(args.data) and args.seed is not None
    if args.seed is None:
        args.seed = 0  # the rows of a bundled dataset; the noise has its own seed (--noise-seed)
    ds = load(args, min_columns=1)
    priv, release = privatize(ds, args.mechanism, epsilon=args.epsilon, p_max=args.p_max, seed=args.noise_seed,
                              split=args.split, bins=args.bins, log=args.log)
    write_table(priv, args.out, args.codes)
    print(local_summary(release.privacy()), file=sys.stderr)
    print(f"  noise: {release.noise['note']}", file=sys.stderr)  # as discover prints a run's noise
    if seeded_file:
        print("note: --seed samples the rows of a bundled dataset (--dataset); a --data file is used whole, so it "
              "does not seed the noise, which is fresh: --noise-seed fixes it for a reproducible demo",
              file=sys.stderr)
    if args.out != "-":
        print(f"wrote {priv.n} privatised rows × {priv.d} columns to {args.out}", file=sys.stderr)
    return 0
