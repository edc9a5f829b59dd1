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
    ds = load(args, min_columns=1)
    priv, release = privatize(ds, args.mechanism, epsilon=args.epsilon, p_max=args.p_max, seed=args.seed,
                              split=args.split, bins=args.bins, log=args.log)
    write_table(priv, args.out, args.codes)
    msg = local_summary(release.privacy())
    print(msg, file=sys.stderr)
    if args.out != "-":
        print(f"wrote {priv.n} privatised rows × {priv.d} columns to {args.out}", file=sys.stderr)
    return 0
