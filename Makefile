# Two entry points that work on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev,dask,rl]"
	touch $@

install: $(VENV)/.installed

demo: install
	$(VENV)/bin/tractor-sim run experiments/quickstart.toml --out runs/quickstart

test: install
	$(PY) -m pytest -q

test-slow: install
	$(PY) -m pytest -q -m slow

bench: install
	$(PY) benchmarks/bench_deals.py

.PHONY: install demo test test-slow bench
