# Two entry points that work on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

$(PY):
	$(PYTHON) -m venv $(VENV)

# The venv's pip installs uv, and uv the editable package with its extras, byte-compiled over every
# core (the same versions as pip picks; 19 s instead of pip's 45 on a fresh clone here). Byte-compiling
# at install stays: with PYTHONDONTWRITEBYTECODE set (as here) every process would compile its imports
# again (2.6 s each).
$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --no-compile uv
	$(VENV)/bin/uv pip install --quiet --python $(PY) --compile-bytecode -e ".[dev,dask,rl]"
	touch $@

install: $(VENV)/.installed

# The package's own sources byte-compiled too, when one is newer than the stamp: the editable install
# leaves them to each process, which compiled the modules it imports again (0.3 s of a 3.4 s warm demo);
# the stamp spares a warm `make demo` starting Python to find them up to date (0.04 s).
$(VENV)/.bytecode: $(VENV)/.installed $(shell find tractor_sim -name '*.py')
	$(PY) -m compileall -q "$(CURDIR)/tractor_sim"
	touch $@

bytecode: $(VENV)/.bytecode

demo: bytecode
	$(VENV)/bin/tractor-sim run experiments/quickstart.toml --out runs/quickstart

# Tiers (README "Tests"): `test` every rule and feature at a small size, over the machine's cores;
# `test-slow` the long differential, legality and statistical runs; `test-all` both.
test: bytecode
	$(PY) -m pytest -q -n auto --dist loadgroup

test-slow: bytecode
	$(PY) -m pytest -q -n auto --dist loadgroup -m slow

test-all: test test-slow

bench: install
	$(PY) benchmarks/bench_deals.py

.PHONY: install bytecode demo test test-slow test-all bench
