"""python -m sr recipe: the recipes of the shipped networks (recipes/<id>.json, sr/recipe.py).

  python -m sr recipe show ours-balanced-x2     # the commands that made it, root run first
  python -m sr recipe check                     # every recipe's files and kept checkpoints against their sha256
  python -m sr recipe write ours-balanced-x2    # (re)write it from exports/ and the runs (where the runs are)
  python -m sr recipe ship ours-balanced-x2     # copy the checkpoints it exports from into shipped/, write, card
  python -m sr recipe card ours-balanced-x2     # the model card's Files section from the recipe
"""
import argparse
import shutil
import sys

import torch

from sr import recipe as rc
from sr.checkpoint import save_atomic
from sr.paths import RUNS, SHIPPED


RESUME_ONLY = ('opt', 'sched', 'torch_rng')


def ship(network_id: str) -> None:
    built = rc.build_recipe(network_id)
    for kept in built['checkpoints']:
        run, file = rc.run_of(kept)
        src, dst = RUNS / run, SHIPPED / run
        if not (dst / file).exists():
            dst.mkdir(parents=True, exist_ok=True)
            ck = torch.load(src / file, map_location='cpu', weights_only=False)
            # a last.pt also holds what only --resume needs (optimizer, scheduler, RNG): two thirds of its bytes
            save_atomic({k: v for k, v in ck.items() if k not in RESUME_ONLY}, dst / file)
            for extra in ('release.json', 'metrics.jsonl', 'int8_report.json'):
                if (src / extra).exists():
                    shutil.copy2(src / extra, dst / extra)
    print(rc.write(network_id))
    print(rc.update_card(network_id))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('action', choices=['show', 'check', 'write', 'ship', 'card'])
    ap.add_argument('ids', nargs='*', help='network ids (default: every shipped network)')
    a = ap.parse_args()
    ids = a.ids or rc.shipped_ids()
    if a.action == 'show':
        import json
        from sr.paths import RECIPES
        for network_id in ids:
            r = json.loads((RECIPES / f'{network_id}.json').read_text())
            print(f'# {network_id}')
            for run in r['runs']:
                print(f"{run['command']}   # -> {run['run']}/{run['checkpoint']} it {run['iteration']}, "
                      f"held-out {run['val_psnr']} dB")
            for f in r['files']:
                for line in f['make']:
                    print(line)
                print(f"#   {f['file']} sha256 {f['sha256']}")
            print()
    elif a.action == 'check':
        bad = {i: rc.check(i) for i in ids}
        for network_id, problems in bad.items():
            print(f"{network_id}: {'ok' if not problems else '; '.join(problems)}")
        return 1 if any(bad.values()) else 0
    elif a.action == 'write':
        for network_id in ids:
            print(rc.write(network_id))
    elif a.action == 'card':
        for network_id in ids:
            print(rc.update_card(network_id))
    else:
        for network_id in ids:
            ship(network_id)
    return 0


if __name__ == '__main__':
    sys.exit(main())
