#!/usr/bin/env bash
# WordNet 3.0 for NLTK, offline: Debian's wordnet-base + wordnet-sense-index install the database
# under /usr/share/wordnet; NLTK reads it once the files are COPIED (its path check refuses
# symlinks that leave the data root) into <NLTK_DATA>/corpora/wordnet/ with a `lexnames` file,
# which Debian does not ship. Idempotent.
#
#   bash scripts/wordnet.sh [NLTK_DATA]      (default: var/nltk_data)
#
# The synonym generator then reads it with GenerationResources(wordnet_dir="var/nltk_data").
set -euo pipefail
NLTK_DATA_DIR="${1:-var/nltk_data}"
SOURCE=/usr/share/wordnet
TARGET="$NLTK_DATA_DIR/corpora/wordnet"

if [ -f "$TARGET/lexnames" ] && [ -f "$TARGET/data.noun" ] && [ -f "$TARGET/index.sense" ]; then
  exit 0
fi
if [ ! -f "$SOURCE/data.noun" ] || [ ! -f "$SOURCE/index.sense" ]; then
  echo "wordnet: installing Debian's wordnet-base and wordnet-sense-index" >&2
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends wordnet-base wordnet-sense-index >/dev/null
fi

mkdir -p "$TARGET"
for name in adj.exc adv.exc noun.exc verb.exc cntlist.rev \
            data.adj data.adv data.noun data.verb index.adj index.adv index.noun index.verb index.sense \
            sentidx.vrb sents.vrb; do
  if [ -f "$SOURCE/$name" ]; then
    cp "$SOURCE/$name" "$TARGET/$name"
  fi
done

# The 45 lexicographer files of WordNet 3.0 (lexnames(5WN)): number, name, syntactic category
# (1 noun, 2 verb, 3 adjective, 4 adverb). Written last, so its presence marks a complete copy.
python3 - "$TARGET/lexnames" <<'EOF'
import sys

names = ["adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact",
         "noun.attribute", "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling",
         "noun.food", "noun.group", "noun.location", "noun.motive", "noun.object", "noun.person",
         "noun.phenomenon", "noun.plant", "noun.possession", "noun.process", "noun.quantity", "noun.relation",
         "noun.shape", "noun.state", "noun.substance", "noun.time", "verb.body", "verb.change", "verb.cognition",
         "verb.communication", "verb.competition", "verb.consumption", "verb.contact", "verb.creation",
         "verb.emotion", "verb.motion", "verb.perception", "verb.possession", "verb.social", "verb.stative",
         "verb.weather", "adj.ppl"]
category = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
assert len(names) == 45
with open(sys.argv[1] + ".tmp", "w") as out:
    for number, name in enumerate(names):
        out.write(f"{number:02d}\t{name}\t{category[name.split('.')[0]]}\n")
EOF
mv "$TARGET/lexnames.tmp" "$TARGET/lexnames"
echo "wordnet: WordNet 3.0 copied to $TARGET" >&2
