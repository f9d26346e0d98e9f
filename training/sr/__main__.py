"""The training package's one entry point: `python -m sr COMMAND [options]` (or `.venv/bin/sr COMMAND`), run from
training/ (paths in options are relative to the working directory; runs/, exports/ and the data are found from the
package itself). `python -m sr` alone lists the commands; `python -m sr COMMAND -h` gives a command's options."""
import importlib
import sys

# command -> (module under sr.commands, what it does). Grouped as a recipe uses them: data, training, release.
COMMANDS: dict[str, tuple[str, str]] = {
    'fetch-data': ('fetch_data', 'download the commercially licensed photos of data/licensed-photos.tsv (to ~/.cache/upscaler/datasets/licensed)'),
    'pack-data': ('pack_data', 'T91 + BSD200 + Set5 in one lossless file (packs/sr_data.npz) for a lent GPU machine'),
    'distill-targets': ('distill_targets', "the sharp tier's teacher pairs (runs/distill_data/)"),
    'train': ('train', 'train a network on bicubic or photo degradations (runs/NAME/)'),
    'distill': ('distill', "train a student on the teacher's pairs (runs/NAME/)"),
    'qat': ('qat', 'int8 quantization-aware fine-tuning of a float checkpoint (runs/NAME/)'),
    'evaluate': ('evaluate', 'Set5 / Set14 / BSD100 table for bicubic, a checkpoint or an ONNX file'),
    'export': ('export', 'checkpoint -> ONNX in the engine I/O convention, with its JSON sidecar'),
    'export-int8': ('export_int8', 'QAT checkpoint -> QDQ int8 ONNX'),
    'export-blend': ('export_blend', 'several ONNX networks of one scale, each on its own transform, in one file'),
    'bench': ('bench', 'onnxruntime ms per output megapixel, interleaved runs'),
    'engine-quality': ('engine_quality', "the model cards' tables through the engine's harness"),
    'release': ('release', 'export + engine table + bench + model card (exports/, docs/model-cards/)'),
    'release-sharp': ('release_sharp', "a sharp-tier student: export + score against the teacher + bench beside balanced + model card"),
    'int8-report': ('int8_report', 'float32 vs int8 PSNR and speed against the 0.03 dB bar; --ship copies a passing file'),
    'int8-card': ('int8_card', "a model card's int8 section"),
    'int8-sensitivity': ('int8_sensitivity', 'what un-quantizing each conv gives back'),
    'pass-blends': ('pass_blends', 'scores self-ensembles and blends from cached per-transform outputs'),
    'recipe': ('recipe', 'the recipes of the shipped networks (recipes/): show, check, write'),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    rows = '\n'.join(f'  {name.ljust(width)}  {what}' for name, (_, what) in COMMANDS.items())
    return f'usage: python -m sr COMMAND [options]\n\ncommands:\n{rows}\n'


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ('-h', '--help'):
        sys.stdout.write(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        sys.stderr.write(f'unknown command {name!r}\n\n{usage()}')
        return 2
    module = importlib.import_module(f'sr.commands.{COMMANDS[name][0]}')
    sys.argv = [f'python -m sr {name}', *rest]  # argparse's prog in usage and error lines
    result = module.main()
    return result if isinstance(result, int) else 0


def cli() -> None:
    sys.exit(main(sys.argv[1:]))


if __name__ == '__main__':
    cli()
