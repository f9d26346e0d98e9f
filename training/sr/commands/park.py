"""python -m sr park RUN: keep a run that outlives its machine in git, so that another machine continues it.

  python -m sr park x2_bal_lic               # runs/x2_bal_lic/last.pt -> parked/x2_bal_lic/last.pt
  python -m sr park x2_bal_lic --file best.pt

A training machine here is not kept between sessions, and a network of the `balanced` size takes longer than one
session on two cores. The parked file is the model and its meta (what `--init` and `--grow-from` read), without the
optimizer, scheduler and RNG state that only `--resume` reads: the next machine starts a new schedule from it
(`sr train --init parked/RUN/last.pt` or `--grow-from parked/RUN/last.pt`), and the recipe of the network it
becomes names the parked run as a parent like any other. A parked run leaves parked/ when a recipe ships the network
it led to, or when it is abandoned (training/README.md "Runs longer than a machine").
"""
import argparse
import shutil

import torch

from sr.checkpoint import save_atomic
from sr.commands.recipe import RESUME_ONLY
from sr.paths import PARKED, RUNS
from sr.recipe import sha256


def park(run: str, file: str = 'last.pt', runs=RUNS, parked=PARKED) -> str:
    """Copies runs/RUN/FILE (model and meta only) and the run's metrics to parked/RUN/; answers a line to print."""
    src, dst = runs / run, parked / run
    ck = torch.load(src / file, map_location='cpu', weights_only=False)
    dst.mkdir(parents=True, exist_ok=True)
    save_atomic({k: v for k, v in ck.items() if k not in RESUME_ONLY}, dst / file)
    if (src / 'metrics.jsonl').exists():
        shutil.copy2(src / 'metrics.jsonl', dst / 'metrics.jsonl')
    size = (dst / file).stat().st_size
    held_out = f", held-out {ck['val_psnr']} dB" if ck.get('val_psnr') is not None else ''  # last.pt has none
    return f"parked {run}/{file}: iteration {ck.get('iteration')}{held_out}, {size / 1e6:.2f} MB, sha256 {sha256(dst / file)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('run', help='a run folder under runs/')
    ap.add_argument('--file', default='last.pt', help='the checkpoint to park (default last.pt)')
    a = ap.parse_args()
    print(park(a.run, a.file))


if __name__ == '__main__':
    main()
