"""``train_pap --dataset NAME… [--preset tiny|paper] [--base scratch|minilm|smollm2|HUB_ID|DIR] [--activate]``."""
from __future__ import annotations

from ._scanning_args import TrainGeneratorCommand


class Command(TrainGeneratorCommand):
    kind = "pap"
    help = (
        "Train a PAP paraphraser (SCANNING, paper 000): the active STEAD rewrites the datasets' problems under "
        "Table 7 inference noise, QF-PCF + PAMMR pick the parallel corpus (stored as selected stead candidates, "
        "queued for annotation, edited by the annotators' gold labels), then PAP trains on it. Written to "
        "PARALAB_MODEL_DIR/pap/v<id>-<time>/ and registered as a candidate version (active with --activate). "
        'Runs as a job in this process; prints JSON {"version", "kind", "status", "path", "metrics", "job"}.'
    )
