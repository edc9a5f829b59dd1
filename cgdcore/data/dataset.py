"""The Dataset record that every loader returns and every algorithm consumes."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def code_dtype(k: int) -> type:
    """The smallest dtype that holds the codes 0..k−1 of discrete columns with at most ``k`` categories: uint8 up to
    256, uint16 up to 65,536, int32 beyond. Every code array the kernels read has one of these three types, so each
    kernel is compiled for three signatures at most."""
    return np.uint8 if k <= 256 else np.uint16 if k <= 65536 else np.int32


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data matrix with its metadata.

    Attributes
    ----------
    name: registry spec or file name the data came from (e.g. ``"asia"``, ``"upload:x.csv"``).
    variables: column names, length d.
    data: array of shape (n, d). Discrete columns hold integer codes 0..k-1; numeric
        columns hold floats. A fully discrete dataset is stored as a small integer dtype.
    states: per column, the tuple of state labels (code i has label states[i]) for a
        discrete column, or ``None`` for a numeric column.
    truth: (d, d) boolean adjacency of the true DAG (``truth[i, j]`` means i -> j), or None.
    truth_name: which ground truth ``truth`` is (e.g. "bnlearn sachs.bif (17 arcs)").
    source, licence: attribution shown in the app and in ``datasets``.
    notes: human-readable remarks (rows dropped for missing values, faithfulness caveats, ...).
    ranges: public ranges (lo, hi) of numeric columns by name — declared metadata or the user's
        declaration, never computed from the rows. Private runs bin and clip numeric columns to them.
    """

    name: str
    variables: tuple[str, ...]
    data: np.ndarray
    states: tuple[tuple[str, ...] | None, ...]
    truth: np.ndarray | None = None
    truth_name: str | None = None
    source: str = ""
    licence: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    ranges: dict = field(default_factory=dict)

    def to_frame(self, codes: bool = False):
        """The rows as a pandas DataFrame: categorical columns by their state labels (``codes``: integer codes),
        numeric columns as they are."""
        import pandas as pd

        cols = {}
        for j, v in enumerate(self.variables):
            col, st = self.data[:, j], self.states[j]
            cols[v] = col if (st is None or codes) else pd.Categorical.from_codes(col.astype(int), categories=list(st))
        return pd.DataFrame(cols)

    def with_ranges(self, ranges) -> "Dataset":
        """A copy whose declared public ranges are updated by ``ranges`` ({column: (lo, hi)})."""
        from dataclasses import replace

        return replace(self, ranges={**self.ranges, **dict(ranges or {})})

    @property
    def n(self) -> int:
        return int(self.data.shape[0])

    @property
    def d(self) -> int:
        return int(self.data.shape[1])

    @property
    def categories_from_file(self) -> bool:
        """Whether categorical columns have categories read from a data file (an upload, a ``--data`` CSV: the
        sorted distinct labels of its rows) rather than declared by a bundled dataset's schema (bundled datasets
        name their source). A private run's ε then holds only if those categories are taken as public
        (cgdcore.privacy.PUBLIC_CATEGORIES_NOTE). Ask it of the table before numeric columns are binned over their
        public ranges."""
        return not self.source and any(s is not None for s in self.states)

    @property
    def is_discrete(self) -> bool:
        return all(s is not None for s in self.states)

    @property
    def kind(self) -> str:
        disc = [s is not None for s in self.states]
        if all(disc):
            return "discrete"
        if not any(disc):
            return "continuous"
        return "mixed"

    @property
    def arities(self) -> tuple[int, ...] | None:
        """Number of states per column, or None if any column is numeric."""
        if not self.is_discrete:
            return None
        return tuple(len(s) for s in self.states)  # type: ignore[arg-type]
