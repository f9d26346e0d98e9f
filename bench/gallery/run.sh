#!/usr/bin/env bash
# The sharp tier's gallery and no-reference measures (docs/benchmarks.md "Gallery"):
#   npm run build && bash bench/gallery/run.sh [out dir] [--student FILE.onnx]   (GALLERY_DOCS: where the sheets go)
# Makes bench/gallery/.venv (scikit-image's bundled photos, BRISQUE, blur_effect: requirements.txt), cuts the inputs
# (prepare.py), upscales them with bicubic / balanced / sharp through the engine (upscale.ts), measures and draws the
# sheets into docs/gallery/ (judge.py), and prints the table. A few minutes on two cores: the sharp tier dominates.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-bench/gallery/out}"
shift || true
venv=bench/gallery/.venv
[ -x "$venv/bin/python" ] || python3.11 -m venv "$venv"
"$venv/bin/pip" install -q -r bench/gallery/requirements.txt
"$venv/bin/python" bench/gallery/prepare.py "$out"
node bench/gallery/run.js "$out" "$@"
"$venv/bin/python" -W ignore::DeprecationWarning bench/gallery/judge.py "$out" "${GALLERY_DOCS:-docs/gallery}"
