# Two entry points that work on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

$(PY):
	$(PYTHON) -m venv $(VENV)

# --no-compile: the dependencies' modules are byte-compiled when first imported, not all at install
# (a fresh clone's install went from 39 s to 22 s; the venv's own pip installs the editable package).
$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --no-compile -e ".[dev,dask,rl]"
	touch $@

install: $(VENV)/.installed

demo: install
	$(VENV)/bin/tractor-sim run experiments/quickstart.toml --out runs/quickstart

# Tiers (README "Tests"): `test` every rule and feature at a small size, over the machine's cores;
# `test-slow` the long differential, legality and statistical runs; `test-all` both.
test: install
	$(PY) -m pytest -q -n auto --dist loadgroup

test-slow: install
	$(PY) -m pytest -q -n auto --dist loadgroup -m slow

test-all: test test-slow

bench: install
	$(PY) benchmarks/bench_deals.py

.PHONY: install demo test test-slow test-all bench
