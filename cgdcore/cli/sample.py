"""``sample``: a dataset's rows to CSV."""
from __future__ import annotations

import sys

from .tables import load, write_table


def run(args) -> int:
    ds = load(args)
    write_table(ds, args.out, args.codes)
    if args.out != "-":
        print(f"wrote {ds.n} rows × {ds.d} columns of {ds.name} to {args.out}", file=sys.stderr)
    return 0
