"""``python -m cgdcore`` — the command-line contract of DESIGN.md.

Every user mistake ends with a one-paragraph message on stderr and exit code 2; no
traceback is ever printed. Heavy modules (pandas, scipy) are imported only by the
commands that need them, and each sub-command's module only when it runs, so
``datasets`` starts fast.

Layout: :mod:`.parser` builds the argument parser (option flags generated from the
algorithm registry), :mod:`.arguments` converts and checks single values, one module
per sub-command (:mod:`.datasets`, :mod:`.sample`, :mod:`.discover`, :mod:`.privatize`,
:mod:`.sweep`) runs it, and :mod:`.reproduce` writes the command that repeats a run.
"""
from __future__ import annotations

import atexit
import os
import sys
import threading
from importlib import import_module

from .. import UserError
from .parser import EXIT_USAGE, build_parser, fail
from .reproduce import command_line

__all__ = ["COMMANDS", "EXIT_USAGE", "build_parser", "command_line", "main", "run"]

#: sub-command -> the module (in this package) whose ``run(args)`` carries it out
COMMANDS = {"datasets": "datasets", "sample": "sample", "discover": "discover", "privatize": "privatize",
            "sweep": "sweep"}


def main(argv=None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return import_module(f".{COMMANDS[args.command]}", __name__).run(args)
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else fail(e.code)
    except UserError as e:
        return fail(str(e))
    except MemoryError:
        return fail("out of memory: try fewer rows (--n) or a smaller maximum order (--max-order).")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # an internal bug: short message, no traceback
        print(f"internal error ({type(e).__name__}): {e}. Please report it with the command you ran.", file=sys.stderr)
        return 1


#: what OpenBLAS (numpy's and scipy's BLAS) reads for its number of threads, in its order
_BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _one_blas_thread() -> None:
    """Load BLAS with one thread unless the environment names a number: a command's matrix products are small
    (d × d, or d × n in 65,536-row chunks), while each extra OpenBLAS thread spins at load and after every threaded
    call waiting for work (≈ 0.03 s CPU per process on two cores, an eighth of an SVT-PC run on Sachs)."""
    if "numpy" not in sys.modules and not any(v in os.environ for v in _BLAS_THREAD_VARS):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def run() -> None:
    """The ``cgdcore`` console script (``pip install -e .``): the same as ``python -m cgdcore``.

    When the command has finished and only the main thread is left, the process ends without the interpreter's
    teardown, which frees every module's objects one by one (≈ 0.1 s CPU after a run that loaded numba, a tenth of
    a compiled Child run): the output is flushed and the exit functions (``atexit``, ``weakref.finalize``) run first,
    then ``os._exit`` with the command's exit code."""
    _one_blas_thread()
    code = main()
    if threading.active_count() != 1:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # e.g. the reader of a pipe has gone: nothing more can be written
        pass
    atexit._run_exitfuncs()
    os._exit(code)
