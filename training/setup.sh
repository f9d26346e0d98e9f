#!/usr/bin/env bash
# Creates training/.venv (CPU-only PyTorch from PyPI, pinned) -- about 1.6 GB, no nvidia packages -- with the
# training package (sr) installed editable.
#   bash training/setup.sh            (idempotent; PYTHON=python3.11 or VENV=/path to override)
# PyPI's Linux torch wheel is the CUDA build; it is installed without its nvidia-*/cuda-* dependencies
# and cuda_stubs.py compiles stand-ins for the CUDA libraries it links against (needs a C compiler, cc).
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 11), f"python 3.11 needed, got {sys.version}"'
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/pip" install --disable-pip-version-check -q -r requirements.txt
"$VENV/bin/pip" install --disable-pip-version-check -q --no-deps -r requirements-torch.txt
"$VENV/bin/python" cuda_stubs.py > /dev/null
"$VENV/bin/pip" install --disable-pip-version-check -q --no-deps -e .   # the sr package: python -m sr, .venv/bin/sr
"$VENV/bin/python" -c 'import torch, onnxruntime; print("torch", torch.__version__, "cuda:", torch.cuda.is_available(), "| onnxruntime", onnxruntime.__version__)'
