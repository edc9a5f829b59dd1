"""cgdcore: privacy-preserving causal discovery — data, CI tests, one PC engine, metrics.

Importing the package is cheap: it loads numpy only. Streamlit and plotly are never
imported here (see ``cgdcore.viz`` for figure builders, imported lazily by the app).
"""

__version__ = "0.1.0"


class UserError(ValueError):
    """A problem with user input (arguments, files, parameters).

    The message says what is wrong and how to fix it; the CLI prints it and exits
    with code 2, the app shows it in an error box. Never raised for internal bugs.
    """


def lazy_attributes(package: str, homes: dict[str, str], namespace: dict):
    """A package's ``__getattr__`` (PEP 562): the name ``n`` is imported from ``package.homes[n]`` on first use and
    kept in ``namespace`` (the package's globals), so importing the package loads none of those submodules."""
    from importlib import import_module

    def __getattr__(name):
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(import_module(f"{package}.{home}"), name)
        return value

    return __getattr__
