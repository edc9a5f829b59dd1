"""Reading the dataset a command names (``--dataset`` or ``--data``, with ``--ranges``) and writing a table."""
from __future__ import annotations

import sys

from .. import UserError


def load(args, min_columns: int = 2):
    if getattr(args, "data", None):
        from ..data.tabular import load_csv

        ds = load_csv(args.data, min_columns=min_columns)
    else:
        from ..data.registry import load_dataset

        ds = load_dataset(args.dataset, n=args.n, seed=args.seed)
    if getattr(args, "ranges", None):
        from ..data.tabular import parse_ranges

        ds = ds.with_ranges(parse_ranges(args.ranges, ds.variables))
    return ds


def write_table(ds, path: str, codes: bool) -> None:
    try:
        ds.to_frame(codes).to_csv(sys.stdout if path == "-" else path, index=False)
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror or e}. Choose a writable path.") from None
