#!/usr/bin/env bash
# Creates training/.venv with the pinned requirements (CPU use only; see requirements.txt).
# Usage: bash training/setup.sh   (idempotent; PYTHON=python3.11 to choose the interpreter)
set -euo pipefail
cd "$(dirname "$0")"
PY="${PYTHON:-python3}"
"$PY" -c 'import sys; assert sys.version_info[:2] == (3, 11), f"python 3.11 needed, got {sys.version}"'
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/pip install --disable-pip-version-check -q -r requirements.txt
.venv/bin/python -c 'import torch, onnxruntime; print("torch", torch.__version__, "cuda:", torch.cuda.is_available(), "| onnxruntime", onnxruntime.__version__)'
