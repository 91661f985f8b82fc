# minikafka: two commands set everything up on a fresh machine.
#
#   make lab     build .venv, install minikafka, copy the lessons to my-lessons/ with
#                their outputs cleared (never overwriting your edits), start JupyterLab there
#   make test    build .venv, install minikafka, type-check it (mypy), run every test and lesson
#   make test-oracle  the sandbox against a real Apache Kafka 4.3.1 (Java 17, jars from Maven Central)
#
# Both first run scripts/ensure_venv.sh (creates .venv with Python >= 3.11
# and installs the project; cheap when pyproject.toml is unchanged) and
# scripts/ensure_system_deps.sh (Graphviz, Java 17, and for tests Chromium;
# installed with apt-get when possible, otherwise one line says what is
# missing and the tests needing it are skipped), then scripts/ensure_jars.sh
# (Spark's Kafka connector and Apache Kafka 4.3.1's jars, fetched once from
# Maven Central into ~/.cache/minikafka/jars; likewise one line if it cannot).
#
# Knobs: JOBS=n (pytest-xdist workers), PYTEST_ARGS="..." (extra pytest
# arguments for both test steps), LAB_ARGS="..." (extra jupyter lab arguments),
# MINIKAFKA_PYTHON=python3.x (interpreter for a new .venv),
# MINIKAFKA_NO_SYSTEM_INSTALL=1 (never run apt-get).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
SYSTEM_DEPS_ENV := .make-stamps/system-deps.env

# One xdist worker per core, at most 4: each worker may start a Spark JVM.
JOBS ?= $(shell n=$$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2); echo $$(( n > 4 ? 4 : n )))
PYTEST_ARGS ?=
LAB_ARGS ?=
NBVAL_CELL_TIMEOUT ?= 300

# Spark starts its Python workers with `python3` from PATH unless told which.
test test-python test-lessons lab bench: export PYSPARK_PYTHON := $(CURDIR)/$(PY)
test test-python test-lessons lab bench: export PYSPARK_DRIVER_PYTHON := $(CURDIR)/$(PY)

# Puts ensure_system_deps.sh's findings (MINIKAFKA_DOT, ...) into the
# environment; without them conftest.py looks the programs up itself.
LOAD_SYSTEM_DEPS := [[ ! -f $(SYSTEM_DEPS_ENV) ]] || { set -a; source $(SYSTEM_DEPS_ENV); set +a; }

.PHONY: help venv learner-copies test typecheck test-python test-lessons test-oracle lab bench clean

help:
	@echo "make lab     set up .venv, copy the lessons to my-lessons/ (outputs cleared) and start JupyterLab there"
	@echo "make test    set up .venv, type-check (mypy) and run all tests, then the lessons with nbval"
	@echo "make test-oracle  play the differential scenarios against a real Kafka 4.3.1 and refresh docs/fidelity.md"
	@echo "make bench   run every benchmarks/*.py"
	@echo "make clean   remove .venv and the set-up stamps"

venv:
	@bash scripts/ensure_venv.sh

# The lessons run even when a Python test failed (--keep-going); make still fails.
test: venv
	@bash scripts/ensure_system_deps.sh dot java chromium
	@$(LOAD_SYSTEM_DEPS); bash scripts/ensure_jars.sh
	@$(MAKE) --no-print-directory --keep-going typecheck test-python test-lessons

# mypy over minikafka/ and widgets/, configured in pyproject.toml ([tool.mypy]: strict
# on the lowest layers).  About 8 s on 2 cores from scratch, under a second when
# .mypy_cache/ is warm.
typecheck: venv
	@$(PY) -m mypy

# Unit, simulation and end-to-end tests, spread over the cores.  A test module
# that starts a live cluster shares it between its tests (module-scoped fixture)
# and reads as one scenario in file order, so a module stays on one worker
# (loadfile).
# Tests that start a Spark JVM or a browser run in a second, serial pass: one JVM
# is shared by them all, instead of one per xdist worker.
test-python:
	@$(LOAD_SYSTEM_DEPS); \
	$(PY) -m pytest -n $(JOBS) --dist loadfile -ra -m "not spark and not browser and not slow" $(PYTEST_ARGS) tests; \
	$(PY) -m pytest -ra -m "spark or browser or slow" $(PYTEST_ARGS) tests

# The differential suite alone: every scenario played against a real Apache Kafka
# 4.3.1 and the sandbox (tests/oracle, also part of test-python's serial pass).
# docs/fidelity.md's table is rewritten from the run; the last line is
# "N scenarios: X identical, Y normalised, Z different".
test-oracle: venv
	@bash scripts/ensure_system_deps.sh java
	@$(LOAD_SYSTEM_DEPS); bash scripts/ensure_jars.sh kafka
	@$(LOAD_SYSTEM_DEPS); status=0; \
	$(PY) -m pytest -p no:cacheprovider -ra $(PYTEST_ARGS) tests/oracle || status=$$?; \
	$(PY) scripts/oracle_fidelity_table.py; exit $$status

# Every lesson and drill notebook in strict nbval mode, twice in a row (a lesson
# whose outputs depend on an earlier run fails the second pass); one worker owns a whole
# notebook (loadscope) because all cells of a notebook share one kernel.  Graded
# drills append to a scores file, predictions and tasks to a progress file: here
# a throw-away folder, not the user's own.
test-lessons:
	@shopt -s nullglob; notebooks=(lessons/*.ipynb lessons/drills/*.ipynb); \
	scores=$$(mktemp -d); trap 'rm -rf "$$scores"' EXIT; export MINIKAFKA_SCOREBOARD="$$scores/"; \
	export MINIKAFKA_PROGRESS="$$scores/progress/"; \
	if [[ $${#notebooks[@]} -eq 0 ]]; then echo "No lessons/*.ipynb yet: notebook step skipped."; exit 0; fi; \
	sanitize=""; [[ ! -f lessons/nbval_sanitize.cfg ]] || sanitize="--nbval-sanitize-with lessons/nbval_sanitize.cfg"; \
	$(LOAD_SYSTEM_DEPS); \
	for pass in 1 2; do \
	    echo "== nbval, pass $$pass of 2 (the same outputs twice in a row, with the first pass's progress and scores left behind)"; \
	    $(PY) -m pytest -p no:python -p no:cacheprovider --nbval --nbval-current-env $$sanitize \
	        --nbval-cell-timeout=$(NBVAL_CELL_TIMEOUT) -n $(JOBS) --dist loadscope -ra \
	        $(PYTEST_ARGS) "$${notebooks[@]}" || exit $$?; \
	done

# The learner works in my-lessons/: copies of lessons/ with every output cleared,
# so no saved answer sits under a prediction.  A second `make lab` adds new
# lessons and refreshes untouched copies, and never overwrites a learner's edits.
LEARNER_DIR ?= my-lessons

learner-copies: venv
	@$(PY) -m minikafka.course copies --source lessons --dest $(LEARNER_DIR)
	@$(PY) -m minikafka.course lab-settings

lab: venv learner-copies
	@bash scripts/ensure_system_deps.sh dot java
	@$(LOAD_SYSTEM_DEPS); bash scripts/ensure_jars.sh spark
	@args=(--ServerApp.root_dir=$(LEARNER_DIR)); \
	[[ ! -f $(LEARNER_DIR)/00_index.ipynb ]] || args+=(--LabApp.default_url=/lab/tree/00_index.ipynb); \
	[[ -n "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" || "$$(uname)" == Darwin ]] || args+=(--no-browser); \
	[[ $$(id -u) != 0 ]] || args+=(--allow-root); \
	echo "Starting JupyterLab on $(LEARNER_DIR)/: open the http://localhost:.../lab?token=... address it prints below; Ctrl-C stops it."; \
	exec $(VENV)/bin/jupyter lab "$${args[@]}" $(LAB_ARGS)

# Benchmarks are the scripts benchmarks/bench_*.py; other files there are their helpers.
bench: venv
	@shopt -s nullglob; failed=(); ran=0; \
	for script in benchmarks/bench_*.py; do \
	    ran=1; echo "== $$script"; \
	    $(PY) "$$script" || failed+=("$$script"); \
	done; \
	[[ $$ran == 1 ]] || echo "No benchmarks/*.py yet."; \
	[[ $${#failed[@]} -eq 0 ]] || { echo "Failed: $${failed[*]}"; exit 1; }

clean:
	rm -rf $(VENV) .make-stamps
