#!/usr/bin/env bash
# `python -m sr train` on the lent GPU machine, run through the device tool from the repository root
# with carry ["training/packs"] (the pack made here by `python -m sr pack-data, from training/`: that machine has no
# dataset folders). Installs nothing: PyTorch, numpy and Pillow are there.
#
#   bash training/scripts/gpu_train.sh --name x2_gpu --scale 2 --arch plain_c64_b10 --iters 100000 --bf16-until 100000
#   bash training/scripts/gpu_train.sh --name x2_gpu --resume        # a later call, after copying the run back (README)
#
# Any `sr train` options pass through; this adds --device cuda --data <pack> --out "$OUT" --workers N
# (WORKERS, default: cores - 2) and, unless given, --max-minutes 8 (MAX_MINUTES) so the run checkpoints and
# stops inside the tool's 10-minute command limit. The run is written to $OUT/<name>/ (last.pt, best.pt,
# metrics.jsonl, train.log), which the tool brings back; with --resume, $OUT/<name>/ is first seeded from
# training/runs/<name>/ (copied there from the last call's files; SR_RUNS_DIR overrides training/runs).
# PYTHON (default python3) and SR_PACK (default training/packs/sr_data.npz) override too; TRAIN_COMMAND=qat
# runs quantization-aware fine-tuning the same way (its --from checkpoint must travel: carry it, e.g. in packs/).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
PACK="${SR_PACK:-packs/sr_data.npz}"
RUNS="${SR_RUNS_DIR:-runs}"
: "${OUT:?OUT is not set: run this through the device tool, or set OUT to the folder the run should go to}"

name="" resume=0 has_max=0 prev=""
for arg in "$@"; do
  [ "$prev" = --name ] && name="$arg"
  case "$arg" in
    --name=*) name="${arg#--name=}" ;;
    --resume) resume=1 ;;
    --max-minutes|--max-minutes=*) has_max=1 ;;
  esac
  prev="$arg"
done
[ -n "$name" ] || { echo "gpu_train.sh: --name NAME is required" >&2; exit 2; }
if [ ! -f "$PACK" ]; then
  echo "gpu_train.sh: $PACK is missing: make it on the CPU machine (python -m sr pack-data, from training/) and carry training/packs" >&2
  exit 2
fi
if [ -f "$PACK.sha256" ]; then  # the pack arrived whole
  (cd "$(dirname "$PACK")" && sha256sum --quiet -c "$(basename "$PACK").sha256")
fi
"$PY" -c 'import sys, torch
ok = torch.cuda.is_available()
print("torch", torch.__version__, "|", torch.cuda.get_device_name(0) if ok else "no CUDA device", flush=True)
sys.exit(0 if ok else 3)'

mkdir -p "$OUT/$name"
if [ "$resume" = 1 ] && [ ! -f "$OUT/$name/last.pt" ]; then
  [ -f "$RUNS/$name/last.pt" ] || { echo "gpu_train.sh: --resume needs $RUNS/$name/last.pt" >&2; exit 2; }
  for f in last.pt best.pt metrics.jsonl; do
    if [ -f "$RUNS/$name/$f" ]; then cp "$RUNS/$name/$f" "$OUT/$name/"; fi
  done
fi
extra=()
[ "$has_max" = 1 ] || extra+=(--max-minutes "${MAX_MINUTES:-8}")
cores="$(nproc)"
workers="${WORKERS:-$(( cores > 3 ? cores - 2 : 1 ))}"
PYTHONUNBUFFERED=1 "$PY" -m sr "${TRAIN_COMMAND:-train}" --device cuda --data "$PACK" --out "$OUT" --workers "$workers" \
  ${extra[@]+"${extra[@]}"} "$@" 2>&1 | tee -a "$OUT/$name/train.log"
