"""Converters of single command-line values: each checks its value and says what is wrong in the flag's name
(argparse turns the message into ``error: argument --flag: ...`` and exit code 2)."""
from __future__ import annotations

import argparse
import math


def int_at_least(name, lowest):
    def conv(s):
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number (got {s!r})") from None
        if v < lowest:
            raise argparse.ArgumentTypeError(f"{name} must be at least {lowest} (got {v})")
        return v
    return conv


def positive_int(name):
    return int_at_least(name, 1)


def nonneg_int(name):
    return int_at_least(name, 0)


def finite(name):
    def conv(s):
        try:
            v = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number (got {s!r})") from None
        if math.isnan(v):
            raise argparse.ArgumentTypeError(f"{name} must be a number (got NaN)")
        return v
    return conv


def prob(name):
    number = finite(name)

    def conv(s):
        v = number(s)
        if not (0.0 < v < 1.0):
            raise argparse.ArgumentTypeError(f"{name} must be strictly between 0 and 1 (got {s})")
        return v
    return conv
