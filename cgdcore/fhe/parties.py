"""The federation: data owners holding horizontal splits, and what each owner computes locally.

Seed 003 §III-A: each owner M_i holds a disjoint subset of the rows with every variable; the
coordinator never sees rows. An owner answers "the contingency table of these variables" from
its own rows (exact counts) or, in the DP variant, from its own noisy joint histogram.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cgdcore import UserError

SPLITS = ("iid", "skewed")
MAX_OWNERS = 10
#: cells of the full joint histogram the DP variant will noise (k owners × 8 bytes each)
MAX_JOINT_CELLS = 1 << 22


def split_rows(n: int, owners: int, split: str, codes: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
    """Row indices per owner.

    ``iid``: a uniform random partition into near-equal parts. ``skewed``: the usual non-iid
    federated split — for each state v of the first variable, owner shares are drawn from a
    Dirichlet(0.5) and that state's rows are dealt accordingly, so owners see different mixes.
    """
    if split not in SPLITS:
        raise UserError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}.")
    if not (2 <= owners <= MAX_OWNERS):
        raise UserError(f"the number of data owners must be between 2 and {MAX_OWNERS} (got {owners}).")
    if n < 2 * owners:
        raise UserError(f"{n} rows cannot be split among {owners} owners; use more rows or fewer owners.")
    if split == "iid":
        return [np.sort(p) for p in np.array_split(rng.permutation(n), owners)]
    first = codes[:, 0]
    who = np.empty(n, dtype=np.int64)
    for v in np.unique(first):
        idx = np.flatnonzero(first == v)
        who[idx] = rng.choice(owners, size=idx.size, p=rng.dirichlet(np.full(owners, 0.5)))
    parts = [np.flatnonzero(who == i) for i in range(owners)]
    for i, p in enumerate(parts):  # nobody may end up empty: give an empty owner a few rows
        if p.size == 0:
            donor = int(np.argmax([q.size for q in parts]))
            parts[i], parts[donor] = parts[donor][:1], parts[donor][1:]
    return parts


@dataclass
class Owner:
    """One data owner: its rows (integer codes) or, in the DP variant, its noisy joint histogram."""

    index: int
    codes: np.ndarray
    arities: tuple[int, ...]
    joint: np.ndarray | None = None  # noisy local joint histogram, shape = arities

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    def table(self, variables: tuple[int, ...]) -> np.ndarray:
        """Counts of the given variables' joint states, shape (arity of each variable...)."""
        shape = tuple(self.arities[v] for v in variables)
        if self.joint is not None:
            others = tuple(a for a in range(len(self.arities)) if a not in variables)
            marg = self.joint.sum(axis=others)
            kept = [a for a in range(len(self.arities)) if a in variables]
            return np.transpose(marg, [kept.index(v) for v in variables])
        idx = np.zeros(self.n, dtype=np.int64)
        for v in variables:
            idx = idx * self.arities[v] + self.codes[:, v]
        return np.bincount(idx, minlength=int(np.prod(shape, dtype=np.int64))).reshape(shape).astype(np.float64)

    def full_joint(self) -> np.ndarray:
        return self.table(tuple(range(len(self.arities))))


def joint_cells(arities) -> int:
    return int(np.prod([int(a) for a in arities], dtype=np.float64))


