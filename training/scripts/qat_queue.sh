#!/usr/bin/env bash
# QAT fine-tunings one after another (never two training processes at once), each resumable, each
# followed by its int8 report (sr int8-report: export, Set5/Set14/BSD100 float32 vs int8, timing).
#   setsid nohup bash training/scripts/qat_queue.sh training/scripts/qat_queue.txt > /dev/null 2>&1 &
# Queue lines: <run name> <float parent checkpoint> <iterations> <network id> [<jpeg quality>] [extra sr qat options]
# Rerunning the script after a stop resumes the unfinished run and skips finished ones.
# Logs: training/runs/<name>/train.log. Stop: kill the script's pid, then the sr qat pid.
set -u
QUEUE="$(realpath "${1:-$(dirname "$0")/qat_queue.txt}")"
cd "$(dirname "$0")/.."
PY=.venv/bin/python
[ -f "$QUEUE" ] || { echo "no queue file $QUEUE" >> runs/qat_queue.log; exit 1; }
echo "queue $QUEUE started $(date -Is) pid $$" >> runs/qat_queue.log
while read -r name parent iters id jpeg extra; do
  case "$name" in ''|'#'*) continue ;; esac
  [ "${jpeg:-0}" = "-" ] && jpeg=0
  mkdir -p "runs/$name"
  log="runs/$name/train.log"
  if [ -f "runs/$name/last.pt" ]; then
    finished=$($PY -c "import torch; ck = torch.load('runs/$name/last.pt', weights_only=False); print(int(ck['iteration'] >= ck['meta']['config']['iters']))" < /dev/null)
    if [ "$finished" != 1 ]; then
      echo "$(date -Is) resume $name" >> runs/qat_queue.log
      nice -n 19 $PY -m sr qat --name "$name" --resume --threads 1 >> "$log" 2>&1 < /dev/null
    fi
  else
    echo "$(date -Is) start $name from $parent ($iters its)" >> runs/qat_queue.log
    # shellcheck disable=SC2086
    nice -n 19 $PY -m sr qat --name "$name" --from "$parent" --iters "$iters" --threads 1 ${extra:-} >> "$log" 2>&1 < /dev/null
  fi
  if [ ! -f "runs/$name/int8_report.json" ] && [ -f "runs/$name/best.pt" ]; then
    echo "$(date -Is) report $name" >> runs/qat_queue.log
    jp=""; [ "${jpeg:-0}" != 0 ] && jp="--jpeg $jpeg"
    # shellcheck disable=SC2086
    nice -n 19 $PY -m sr int8-report --id "$id" --qat "runs/$name/best.pt" $jp --threads 1 >> "$log" 2>&1 < /dev/null
  fi
done < "$QUEUE"
echo "queue $QUEUE finished $(date -Is)" >> runs/qat_queue.log
