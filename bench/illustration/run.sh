#!/usr/bin/env bash
# Where the illustration networks win (docs/benchmarks.md "Illustrations"):
#   bash bench/illustration/run.sh [out dir]
# Draws the illustration set (set.ts: our own SVGs rendered by sharp), scores every fidelity tier against the
# illustration networks by Y-PSNR at 2x/3x/4x and runs x4plus / x4plus-anime at 4k (measure.ts, through the engine),
# then measures those with the gallery's no-reference measures and draws the sheets into docs/gallery/ (judge.py;
# bench/gallery/.venv, made from bench/gallery/requirements.txt). About 20 minutes on two loaded cores (x4plus dominates).
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-bench/illustration/out}"
venv=bench/gallery/.venv
[ -x "$venv/bin/python" ] || python3.11 -m venv "$venv"
"$venv/bin/pip" install -q -r bench/gallery/requirements.txt
node bench/illustration/run.js measure "$out"
"$venv/bin/python" -W ignore::DeprecationWarning bench/illustration/judge.py "$out" docs/gallery
