# Two commands for a fresh machine with Python 3.11+: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint wheel docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install only when the package metadata changes.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python examples/main_job.py

test: $(STAMP)
	$(BIN)/python -m pytest

# A wheel carrying the kernels precompiled for this platform's generic CPU: dist/rootwise-*.whl
wheel: $(STAMP)
	$(BIN)/python tools/build_wheel.py

# The documentation site (Sphinx + myst-parser, in the test extra): warnings are errors, nothing
# is fetched; the pages open from docs/_build/html/index.html. tests/test_docs.py runs the same build.
docs: $(STAMP)
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build dist rootwise/_kernels *.egg-info docs/_build
