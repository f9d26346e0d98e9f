#!/usr/bin/env bash
# Puts what gpu_plan.sh brought back (the device tool's files_at folder) into training/runs/<name>/:
# best.pt, metrics.jsonl, train.log (git-ignored), and the machine it ran on (gpu_machine.txt).
#
#   bash training/scripts/gpu_fetch.sh <files_at>
set -euo pipefail
src="${1:?usage: gpu_fetch.sh FILES_AT}"
runs="${SR_RUNS_DIR:-$(cd "$(dirname "$0")/.." && pwd)/runs}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$src/logs.tar.gz" -C "$tmp"
for dir in "$tmp"/*/; do
  name="$(basename "$dir")"
  mkdir -p "$runs/$name"
  for f in metrics.jsonl train.log; do
    if [ -f "$dir/$f" ]; then cp "$dir/$f" "$runs/$name/$f"; fi
  done
  if [ -f "$src/$name/best.pt" ]; then cp "$src/$name/best.pt" "$runs/$name/best.pt"; fi
  cp "$tmp/machine.txt" "$runs/$name/gpu_machine.txt"
  echo "$runs/$name: $(cd "$runs/$name" && ls | tr '\n' ' ')"
done
