# routerlab — the README's two commands and the steps they are made of.
#
#   make demo    set up (first time only) and run the main job: examples/dumbbell.toml
#   make test    set up (first time only) and run the whole test suite
#
# Set-up creates .venv/ and installs routerlab into it (Rust extension built by maturin, Python
# dependencies pinned by requirements.lock). It reruns by itself when sources change.

SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name 'Cargo.toml') Cargo.lock

.PHONY: demo test setup lint rust-test py-test clean

demo: setup
	$(BIN)/routerlab run examples/dumbbell.toml --force

test: setup lint rust-test py-test

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock $(RUST_SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	PIP_CONSTRAINT=requirements.lock $(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

lint: setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

rust-test:
	cargo test -p routerlab --quiet
	cargo test -p routerlab-py --quiet

py-test: setup
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) target results
