#!/usr/bin/env bash
# Several gpu_train.sh runs side by side on one lent GPU, in one device-tool call.
#
#   bash training/scripts/gpu_plan.sh training/scripts/plans/<plan>.txt      # through the device tool, carry ["training/packs"]
#
# A plan has one run per line: `WORKERS <gpu_train.sh options>` (# starts a comment). Small networks leave
# an H100/H200 mostly idle while the numpy sampler makes batches on the CPU cores, so runs at several scales
# share the machine: each gets its own batch-making processes (WORKERS), and the GPU time-slices between them.
# Use --fit-minutes (sr train) so every run's schedule ends inside the command's limit.
#
# The device tool brings back at most 8 files of 16 MiB from $OUT, and nothing if the command is killed before
# it copies them, so the runs are written to $STAGE (default /tmp/gpu_plan) and every SYNC_S seconds (60), and at
# the end, $OUT receives: <name>/best.pt of each run and logs.tar.gz (each run's metrics.jsonl, train.log and
# console output, and machine.txt: CPU, GPU, versions). last.pt (Adam state) stays behind: at these widths it is
# over 16 MiB, and a fitted run ends its schedule, so best.pt is what comes next (--init / --grow-from / QAT).
# Back here: training/scripts/gpu_fetch.sh <files_at> unpacks them into training/runs/<name>/.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?OUT is not set: run this through the device tool, or set OUT to the folder the files should go to}"
plan="${1:?usage: gpu_plan.sh PLAN}"
[ -f "$plan" ] || plan="../$plan"  # a path from the repository root
[ -f "$plan" ] || { echo "gpu_plan.sh: no plan $1" >&2; exit 2; }
stage="${STAGE:-/tmp/gpu_plan}"
mkdir -p "$stage" "$OUT"

{
  date -u '+%Y-%m-%dT%H:%M:%SZ'
  lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core)' || true
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 || true
  "${PYTHON:-python3}" -c 'import sys, numpy, torch; print("python", sys.version.split()[0], "numpy", numpy.__version__, "torch", torch.__version__)' 2>&1 || true
  echo "plan $plan:"; grep -v '^\s*#' "$plan" | grep -v '^\s*$'
} > "$stage/machine.txt"
cat "$stage/machine.txt"

names=() pids=()
while read -r workers args; do
  case "$workers" in ''|'#'*) continue ;; esac
  name="$(sed -n 's/.*--name[ =]\([^ ]*\).*/\1/p' <<<"$args")"
  [ -n "$name" ] || { echo "gpu_plan.sh: a line without --name: $workers $args" >&2; exit 2; }
  # shellcheck disable=SC2086  # the options are words of the plan line
  OUT="$stage" WORKERS="$workers" bash scripts/gpu_train.sh $args > "$stage/$name.out" 2>&1 &
  names+=("$name") pids+=($!)
  echo "started $name (workers $workers, pid $!)"
done < "$plan"

sync_out() {  # copy what is there now; each file lands whole (copied beside, then renamed)
  for name in "${names[@]}"; do
    if [ -f "$stage/$name/best.pt" ]; then
      mkdir -p "$OUT/$name"
      cp "$stage/$name/best.pt" "$OUT/$name/best.pt.part" && mv "$OUT/$name/best.pt.part" "$OUT/$name/best.pt"
    fi
  done
  (cd "$stage" && tar -czf "$OUT/logs.tar.gz.part" machine.txt ./*.out ./*/metrics.jsonl ./*/train.log 2>/dev/null)
  mv "$OUT/logs.tar.gz.part" "$OUT/logs.tar.gz"
}

(while sleep "${SYNC_S:-60}"; do sync_out; done) &
syncer=$!
rc=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then echo "${names[$i]}: finished"; else echo "${names[$i]}: FAILED"; rc=1; fi
done
kill "$syncer" 2>/dev/null
wait "$syncer" 2>/dev/null
sync_out
for name in "${names[@]}"; do
  echo "== $name"
  grep -E '^(fit:|done|stopped)' "$stage/$name.out" || tail -5 "$stage/$name.out"
  tail -1 "$stage/$name/metrics.jsonl" 2>/dev/null
done
exit "$rc"
