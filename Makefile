# Two commands matter: `make app` serves the app, `make test` runs the whole suite.
# Both create the virtual environment in .venv from the requirements files when needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8501
RUNTIME_STAMP := $(VENV)/.runtime-installed
DEV_STAMP     := $(VENV)/.dev-installed
KERNEL_STAMP  := $(VENV)/.kernels-compiled
BYTECODE_STAMP := $(VENV)/.bytecode-compiled
KERNEL_SOURCES := $(shell grep -rl --include=*.py "@njit" cgdcore) cgdcore/jit.py cgdcore/warmup.py
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: app test test-fast chromium bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The runtime requirements, then cgdcore itself, editable: the `cgdcore` command and `import cgdcore` work from any
# directory (the data files stay in assets/).
$(RUNTIME_STAMP): requirements.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

# numba compiles each kernel once into its disk cache (cgdcore/warmup.py): after an install and whenever a kernel's
# source changes, so that no run on the app, and no test, waits for a compile it cannot interrupt.
$(KERNEL_STAMP): $(RUNTIME_STAMP) $(KERNEL_SOURCES)
	$(BIN)/python -m cgdcore.warmup
	touch $@

# The project's bytecode, and pytest's assert-rewritten test modules, written once before the suite: on a fresh clone
# the four test workers and three servers otherwise compiled the same modules side by side (collecting alone took
# 2.2 CPU-s per worker without them, 0.9 with). Redone when a Python file changes; a collection error is left for
# the suite to report.
$(BYTECODE_STAMP): $(DEV_STAMP) app.py serve.py $(shell find cgdcore ui pages tests -name '*.py')
	$(BIN)/python -m compileall -q cgdcore ui pages app.py serve.py
	-$(BIN)/python -m pytest --collect-only -q -n 0 >/dev/null 2>&1
	touch $@

$(DEV_STAMP): requirements-dev.txt $(RUNTIME_STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# Debian's chromium for the browser tests (Playwright drives it; no browser is ever downloaded), and its headless
# build, which the tests use when it is there (same engine, less CPU); the tests fall back to chromium without it.
chromium:
	@command -v chromium >/dev/null 2>&1 && command -v chromium-headless-shell >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests..."; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 || \
	    echo "(chromium-headless-shell is not available: the browser tests use chromium)"; }

app: $(RUNTIME_STAMP) $(KERNEL_STAMP)
	$(BIN)/python -m streamlit run serve.py --server.port $(PORT) --server.address localhost

# the test tools (then the bytecode), the kernels' compile and chromium side by side, then the suite
test: $(RUNTIME_STAMP)
	@$(MAKE) --no-print-directory -j3 $(BYTECODE_STAMP) $(KERNEL_STAMP) chromium
	$(BIN)/python -m pytest

# The inner loop: unit and command-line tests only (no AppTest, no browser, no Monte Carlo), stopping at the first
# failure. `make test` stays the whole suite.
test-fast: $(DEV_STAMP) $(KERNEL_STAMP)
	$(BIN)/python -m pytest -m "unit or cli" -x

# load.py drives real browsers, so the bench needs the dev requirements (Playwright) and chromium.
bench: $(DEV_STAMP) chromium
	$(BIN)/python bench/startup.py
	$(BIN)/python bench/sample.py
	$(BIN)/python bench/pc.py
	$(BIN)/python bench/tables.py
	$(BIN)/python bench/privpc.py
	$(BIN)/python bench/orientation.py
	$(BIN)/python bench/causal_learn.py
	$(BIN)/python bench/central.py
	$(BIN)/python bench/score.py
	$(BIN)/python bench/local.py
	$(BIN)/python bench/fhe.py
	$(BIN)/python bench/sweep.py
	$(BIN)/python bench/graph.py
	$(BIN)/python bench/load.py

clean:
	rm -rf $(VENV) .pytest_cache tests/artifacts
