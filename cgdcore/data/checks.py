"""Checks every algorithm makes of a dataset's columns before it runs (kept apart from the CSV reader, which a
run on a shipped network does not load)."""
from __future__ import annotations

from cgdcore import UserError
from cgdcore.data.dataset import Dataset

__all__ = ["check_category_counts", "check_discrete_usable"]


def _short(name: str, limit: int = 40) -> str:
    """A column name for a message: repr, cut to ``limit`` characters (garbage can make huge 'names')."""
    r = repr(name)
    return r if len(r) <= limit else r[:limit - 4] + "…" + r[-1]


def check_category_counts(dataset: Dataset, max_categories: int = 64) -> None:
    """Raise UserError if a categorical column has more than ``max_categories`` categories.

    Every algorithm needs this, not only the discrete tests: a discrete test's tables would have more cells
    than rows, and Fisher-z, Kendall's τ and NOTEARS would read the codes of unordered labels (in sorted
    label order) as numbers. Such a column is usually an identifier or free text.
    """
    for v, s in zip(dataset.variables, dataset.states):
        if s is not None and len(s) > max_categories:
            raise UserError(f"column {_short(v)} has {len(s):,} categories, more than the {max_categories} the "
                            f"tests here can use (it looks like an identifier or free text, and its labels have no "
                            f"order); drop it or merge rare categories into fewer groups")


def check_discrete_usable(dataset: Dataset, max_categories: int = 64) -> None:
    """Raise UserError unless every column is categorical with at most ``max_categories`` states.

    Too many categories is reported first (discretising does not fix it), then numeric columns.
    """
    check_category_counts(dataset, max_categories)
    numeric = [v for v, s in zip(dataset.variables, dataset.states) if s is None]
    if numeric:
        raise UserError(f"a discrete test needs categorical columns, but {', '.join(map(repr, numeric))} "
                        f"{'is' if len(numeric) == 1 else 'are'} numeric; discretise "
                        f"{'it' if len(numeric) == 1 else 'them'} (e.g. into 3 quantile bins) or use a "
                        f"continuous test")
