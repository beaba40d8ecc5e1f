# gpukb: two commands set everything up.
#   make app   - create .venv, install, ingest the bundled KB if missing or stale, serve on 127.0.0.1:8501
#   make test  - create .venv, install, run the whole test suite
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
PORT    ?= 8501
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: venv app ingest test test-fast eval bench check clean

venv: $(STAMP)

# torch is pinned and installed first: 2.13.0 is the CPU build available here;
# without it a resolver may pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[all]'
	touch $(STAMP)

ingest: venv
	$(BIN)/gpukb ingest

app: venv
	@$(BIN)/gpukb status >/dev/null 2>&1 || $(BIN)/gpukb ingest
	$(BIN)/streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

test: venv
	$(BIN)/python -m pytest -q

test-fast: venv
	$(BIN)/python -m pytest -q -m "not slow"

eval: venv
	$(BIN)/gpukb eval

bench: venv
	$(BIN)/gpukb bench

check: venv
	$(BIN)/mypy
	$(BIN)/gpukb kb check
	$(BIN)/gpukb recipe validate --all

clean:
	rm -rf .gpukb .pytest_cache evals/reports
