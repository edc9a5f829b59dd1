"""A figure drawn while another session's thread is half-way through importing pandas (app.py's imports)."""
import subprocess
import sys
import textwrap

from conftest import ROOT

RACE = textwrap.dedent('''
    import ast, sys, threading, time
    import numpy as np
    import plotly  # noqa: F401
    import streamlit, ui.priority, ui.stopping  # noqa: F401  (loaded: the server has run a page before)
    from cgdcore.viz.graph import graph_figure

    assert "pandas" not in sys.modules
    inside, release = threading.Event(), threading.Event()

    class HoldPandas:
        """Holds the first thread to import pandas.core.frame: 'pandas' is in sys.modules, half initialised."""
        def find_spec(self, name, path=None, target=None):
            if name == "pandas.core.frame" and threading.current_thread().name == "first":
                inside.set()
                release.wait(30)
            return None

    sys.meta_path.insert(0, HoldPandas())
    first = threading.Thread(target=lambda: __import__("pandas"), name="first")
    first.start()
    assert inside.wait(30)

    errors = []
    def second_session():
        try:
            tree = ast.parse(open("app.py").read())
            imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
            exec(compile(ast.Module(body=imports, type_ignores=[]), "app.py", "exec"), {})
            dag = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
            graph_figure(dag, dag, ["a", "b", "c"])
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))
    second = threading.Thread(target=second_session)
    second.start()
    second.join(1.0)                    # without app.py's own import of pandas the figure fails here
    release.set()
    first.join(30)
    second.join(30)
    print(errors)
''')


def test_a_session_waits_for_pandas_that_another_is_importing():
    out = subprocess.run([sys.executable, "-c", RACE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
