"""``datasets``: the table (or JSON list) of the datasets."""
from __future__ import annotations

import json


def run(args) -> int:
    from ..data import list_datasets

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
