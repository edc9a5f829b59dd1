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
