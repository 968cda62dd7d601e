# routerlab — the README's two commands and the steps they are made of.
#
#   make demo        set up (first time only) and run the main job: examples/dumbbell.toml
#   make test        set up (first time only) and run the whole test suite
#   make crosscheck  routerlab against ns-3 3.44 on the canonical scenarios (docs/crosscheck.md);
#                    installs the ns3 wheel into its own venv (.venv-ns3) first
#   make wheel       a release wheel in target/wheels/, to `pip install` where nothing is built
#   make wheel-check that wheel installed into a fresh venv outside the checkout runs the demo
#                    and a quick reproduction (not in `make test`: it builds a second time)
#
# Set-up creates .venv/ and installs routerlab into it (Rust extension built by maturin, Python
# dependencies pinned by requirements.lock). It reruns by itself when sources change.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name 'Cargo.toml') Cargo.lock

NS3_VENV ?= .venv-ns3
NS3_STAMP := $(NS3_VENV)/.installed

.PHONY: demo test setup lint rust-test py-test crosscheck wheel wheel-check clean

demo: setup
	$(BIN)/routerlab run examples/dumbbell.toml --force

test: setup lint rust-test py-test

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock $(RUST_SOURCES)
	@echo "routerlab: setting up $(VENV): the pinned Python packages, then the Rust extension (release build; about 2 minutes the first time on 2 cores)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	PIP_CONSTRAINT=requirements.lock $(BIN)/python -m pip install --disable-pip-version-check --progress-bar off -e '.[test]'
	touch $(STAMP)

lint: setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests crosscheck
	$(BIN)/ruff format --check python tests crosscheck

rust-test:
	cargo test -p routerlab --quiet
	cargo test -p routerlab-emu --quiet
	cargo test -p routerlab-py --quiet

py-test: setup
	$(BIN)/pytest -q

crosscheck: setup $(NS3_STAMP)
	$(BIN)/python crosscheck/run.py --ns3-python $(NS3_VENV)/bin/python --update

$(NS3_STAMP): crosscheck/requirements-ns3.lock
	test -x $(NS3_VENV)/bin/python || $(PYTHON) -m venv $(NS3_VENV)
	$(NS3_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r crosscheck/requirements-ns3.lock
	touch $(NS3_STAMP)

WHEELS := target/wheels

wheel: setup
	@echo "routerlab: building a release wheel into $(WHEELS)/ (about 3 minutes on 2 cores)"
	rm -rf $(WHEELS)
	$(BIN)/python -m pip wheel . --no-deps --disable-pip-version-check --progress-bar off -w $(WHEELS)

wheel-check: wheel
	@echo "routerlab: installing the wheel into a fresh venv outside the checkout"
	d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	$(PYTHON) -m venv "$$d/venv" && \
	PIP_CONSTRAINT=$(CURDIR)/requirements.lock "$$d/venv/bin/python" -m pip install \
		--disable-pip-version-check --progress-bar off --quiet $(WHEELS)/routerlab-*.whl && \
	cd "$$d" && "$$d/venv/bin/routerlab" --version && \
	"$$d/venv/bin/routerlab" run $(CURDIR)/examples/dumbbell.toml --out "$$d/demo" && \
	"$$d/venv/bin/routerlab" reproduce base-incast --quick --out "$$d/repro" --no-progress && \
	"$$d/venv/bin/routerlab" reproduce matrix --quick --seeds 2 --out "$$d/matrix" --no-progress && \
	echo "routerlab: the wheel ran the demo, a quick reproduction and the quick matrix outside the checkout"

clean:
	rm -rf $(VENV) $(NS3_VENV) target results
