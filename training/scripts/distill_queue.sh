#!/usr/bin/env bash
# Sharp-tier distillation on the shared 2-core machine: teacher pairs (sr distill-targets) and the student's training
# (sr distill) take turns, so that only one heavy process runs at a time, both at nice 19.
#   setsid nohup bash training/scripts/distill_queue.sh NAME [sr distill options of a new run] > /dev/null 2>&1 &
#   e.g. ... distill_queue.sh x4_sharp_c64b16 --scale 4 --arch compact_c64_b16 --iters 25000 --bf16-until 25000
# Rerun the same line to resume (a run with runs/NAME/last.pt resumes; the options are then ignored). Stop it with
# kill -- -<PID> (the queue's process group; each step loses at most its last checkpoint / shard).
# Turns: FIRST_GEN_MIN minutes of pairs (0: none; default 0), then TRAIN_MIN minutes of training and GEN_MIN minutes of
# pairs alternately until the run is done (each training turn resumes from last.pt and reads the shards on disk
# again: new pairs are used from then on), then pairs until PAIRS exist. Logs: runs/NAME/train.log,
# runs/distill_data/gen.log.
set -u
cd "$(dirname "$0")/.."
NAME=$1
shift
PY=.venv/bin/python
TRAIN_MIN=${TRAIN_MIN:-120}
GEN_MIN=${GEN_MIN:-40}
FIRST_GEN_MIN=${FIRST_GEN_MIN:-0}
PAIRS=${PAIRS:-3000}
LOG=runs/$NAME/train.log
GENLOG=runs/distill_data/gen.log
mkdir -p "runs/$NAME" runs/distill_data
export OMP_NUM_THREADS=2
echo "queue $$ $(date -u +%FT%TZ): $NAME $*" >> "$LOG"
gen() { [ "$1" = 0 ] || nice -n 19 "$PY" -m sr distill-targets --split train --pairs "$PAIRS" --max-minutes "$1" >> "$GENLOG" 2>&1; }
gen "$FIRST_GEN_MIN"
while :; do
  if [ -f "runs/$NAME/last.pt" ]; then args=(--name "$NAME" --resume); else args=(--name "$NAME" "$@"); fi
  nice -n 19 "$PY" -m sr distill "${args[@]}" --threads 2 --max-minutes "$TRAIN_MIN" >> "$LOG" 2>&1 || { echo "queue: sr distill failed" >> "$LOG"; exit 1; }
  tail -n 1 "$LOG" | grep -q '^done' && break
  gen "$GEN_MIN"
done
echo "queue $$ $(date -u +%FT%TZ): $NAME done; pairs up to $PAIRS" >> "$LOG"
nice -n 19 "$PY" -m sr distill-targets --split train --pairs "$PAIRS" >> "$GENLOG" 2>&1
