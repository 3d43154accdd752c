"""``train_stead --dataset NAME… [--preset tiny|paper] [--base scratch|minilm|smollm2|HUB_ID|DIR] [--activate]``."""
from __future__ import annotations

from ._scanning_args import TrainGeneratorCommand


class Command(TrainGeneratorCommand):
    kind = "stead"
    help = (
        "Train a STEAD denoiser (SCANNING, paper 000) on the problems of one or more datasets: Table 6 training "
        "noise drawn afresh every epoch, 20 % passive targets, the paper's optimiser. Written to "
        "PARALAB_MODEL_DIR/stead/v<id>-<time>/ and registered as a candidate version (active with --activate). "
        'Runs as a job in this process; prints JSON {"version", "kind", "status", "path", "metrics", "job"}.'
    )
