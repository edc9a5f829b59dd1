"""An encrypted run in a process of its own, so that stopping it takes effect at once.

Generating CKKS keys and loading a context at N = 32768 are single SEAL calls of 1–2.5 CPU-seconds each (6–12 s of
wall time on a busy server) that no checkpoint can interrupt, so a run stopped in that window used to go on for
longer than the 5 s the app promises. :func:`discover_in_child` runs :func:`cgdcore.discover.discover` in a child
Python process with the same arguments, the same TenSEAL and the same parameters, and returns the same Result. The
calling thread waits passing :func:`cgdcore.cancel.checkpoint` every 0.1 s; when a checkpoint raises (the user left,
Stop was pressed), the child is killed and the exception goes on. Status lines (``options["on_message"]``) are
passed back as the child writes them, and called on the calling thread. A child whose parent has gone ends itself.

Protocol: the parent pickles ``(args, kwargs)`` to a private temporary file and starts
``python -m cgdcore.fhe.isolated IN OUT``; the child writes one JSON string per status line on its standard
output and pickles ``("ok", result)`` or ``("error", exception)`` to OUT.
"""
from __future__ import annotations

import json
import os
import pickle
import queue
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from cgdcore.cancel import Cancelled, cancellable, checkpoint

__all__ = ["discover_in_child", "run_in_child"]

_POLL = 0.1


def discover_in_child(*args, **kwargs):
    """:func:`cgdcore.discover.discover` in a child process that is killed when the run is cancelled."""
    options = dict(kwargs.get("options") or {})
    on_message = options.pop("on_message", None)
    if kwargs.get("options") is not None:
        kwargs["options"] = options
    return run_in_child("cgdcore.discover:discover", args, kwargs, on_message=on_message)


def run_in_child(target: str, args: tuple, kwargs: dict, *, on_message: Callable[[str], Any] | None = None):
    """``module:function`` called with ``args`` and ``kwargs`` in a child process; its result or its exception.
    A ``kwargs["options"]["on_message"]`` of the child is wired to ``on_message`` here."""
    root = str(Path(__file__).resolve().parents[2])  # the folder holding this cgdcore, first on the child's path
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root] + [p for p in os.environ.get("PYTHONPATH", "")
                                                                    .split(os.pathsep) if p])}
    with tempfile.TemporaryDirectory(prefix="cgd-run-") as tmp:
        src, out = Path(tmp, "in.pickle"), Path(tmp, "out.pickle")
        with src.open("wb") as f:
            pickle.dump((target, args, kwargs, on_message is not None), f, protocol=pickle.HIGHEST_PROTOCOL)
        proc = subprocess.Popen([sys.executable, "-m", "cgdcore.fhe.isolated", str(src), str(out)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env, text=True,
                                encoding="utf-8")
        lines: queue.Queue = queue.Queue()
        reader = threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True)
        reader.start()
        try:
            while True:
                try:
                    line = lines.get(timeout=_POLL)
                except queue.Empty:
                    line = None
                if line is _EOF:
                    break
                if line is not None and on_message is not None:
                    on_message(line)
                checkpoint()
            proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            proc.stdout.close()
        if not out.exists():
            raise RuntimeError(f"the run's process ended without a result (exit code {proc.returncode})")
        with out.open("rb") as f:
            status, value = pickle.load(f)
    if status == "error":
        raise value
    return value


_EOF = object()


def _read_lines(stream, lines: queue.Queue) -> None:
    try:
        for raw in stream:
            try:
                lines.put(json.loads(raw))
            except ValueError:
                pass  # not a status line
    except (OSError, ValueError):  # the pipe closed under us: the run was killed
        pass
    finally:
        lines.put(_EOF)


def _child(src: str, out: str) -> None:
    """The child's side: run the target, write status lines on the original stdout, pickle the outcome."""
    import importlib

    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # anything else printed goes to stderr, not into the status channel
    sys.stdout = sys.stderr
    parent = os.getppid()

    def orphaned():
        if os.getppid() != parent:
            raise Cancelled("the process that started this run has gone")

    with open(src, "rb") as f:
        target, args, kwargs, relay = pickle.load(f)
    if relay:
        def say(msg):
            channel.write(json.dumps(str(msg)) + "\n")

        kwargs = {**kwargs, "options": {**(kwargs.get("options") or {}), "on_message": say}}
    module, name = target.split(":")
    try:
        with cancellable(orphaned, interval=1.0):
            outcome = ("ok", getattr(importlib.import_module(module), name)(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 (handed to the parent, which raises it)
        outcome = ("error", e)
    tmp = out + ".part"
    with open(tmp, "wb") as f:
        try:
            pickle.dump(outcome, f, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # noqa: BLE001 (something that cannot be pickled: say what)
            f.seek(0)
            f.truncate()
            what = outcome[1] if outcome[0] == "error" else e
            pickle.dump(("error", RuntimeError(f"{type(what).__name__}: {what}")), f)
    os.replace(tmp, out)


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
