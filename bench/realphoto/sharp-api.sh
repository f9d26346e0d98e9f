#!/usr/bin/env bash
# A real photo through the whole service at `quality=sharp` (or QUALITY=...): starts the standalone on a scratch data
# folder and port, opens an account, submits a held-out licensed photo of about 1 MP (a JPEG, quality 90, as a camera
# saves it) at 4k, waits for the job and prints its timings and output size, with the CPU model; or the refusal
# (today's `sharp` takes at most 100,000 input pixels: docs/engine.md "The sharp tier").
#   npm run build && bash bench/realphoto/sharp-api.sh [photo.png] [target]
# Default photo: the licensed holdout's lomiri1604-picosdeeuropa (CC-BY-4.0, Aitzol Berasategi), resized to 1224 x 816.
set -euo pipefail
cd "$(dirname "$0")/../.."
photo="${1:-$HOME/.cache/upscaler/datasets/licensed/holdout/lomiri1604-picosdeeuropa.png}"
target="${2:-4k}"
port="${PORT:-18093}"
work=$(mktemp -d)
chmod 755 "$work" # embedded Postgres runs initdb as its own user
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
# json EXPR: EXPR of the JSON on stdin, bound to `_`
json() { node -e "const _ = JSON.parse(require('fs').readFileSync(0, 'utf8')); console.log($1)"; }

node -e "
require('sharp')(process.argv[1]).resize(1224, 816, { fit: 'cover' }).jpeg({ quality: 90, chromaSubsampling: '4:2:0' })
  .toFile(process.argv[2]).then((i) => console.log('input:', i.width + 'x' + i.height, i.size, 'bytes (JPEG q90)'));
" "$photo" "$work/photo.jpg"

UPSCALE_DATA_DIR="$work/data" PORT="$port" node dist/services/standalone/src/main.js > "$work/service.log" 2>&1 &
pid=$!
base="http://127.0.0.1:$port/api/v1"
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/health/ready" > /dev/null && break; sleep 1; done
curl -sf "http://127.0.0.1:$port/health/ready" > /dev/null || { echo "the service did not start:"; tail -20 "$work/service.log"; exit 1; }
op="Authorization: Bearer $(cat "$work/data/operator-token")"
acct=$(curl -sf -X POST "$base/admin/accounts" -H "$op" -H 'Content-Type: application/json' -d '{"name":"bench","credits":100}' | json _.id)
key=$(curl -sf -X POST "$base/admin/accounts/$acct/keys" -H "$op" -H 'Content-Type: application/json' \
  -d '{"scopes":["jobs:read","jobs:write"]}' | json _.key)
auth="Authorization: Bearer $key"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s.%N)
answer=$(curl -s -X POST "$base/upscale" -H "$auth" -F image=@"$work/photo.jpg" -F target="$target" -F format=png -F quality="${QUALITY:-sharp}")
job=$(echo "$answer" | json "_.id ?? ''")
[ -n "$job" ] || { echo "refused: $answer"; exit 2; }
while :; do
  view=$(curl -sf "$base/jobs/$job" -H "$auth" -H 'Prefer: wait=60')
  status=$(echo "$view" | json _.status)
  case "$status" in succeeded | failed | cancelled) break ;; esac
done
t1=$(date +%s.%N)
echo "$view" | json "JSON.stringify({ status: _.status, quality: _.quality, target: _.target, source: _.source, result: _.result && { width: _.result.width, height: _.result.height, bytes: _.result.bytes }, duration_ms: _.duration_ms, error: _.error })"
echo "submit to final: $(node -pe "($t1 - $t0).toFixed(1)") s"
curl -sfL "$base/jobs/$job/result" -H "$auth" -o "$work/out.png" && node -e "
require('sharp')(process.argv[1]).metadata().then((m) => console.log('result:', m.width + 'x' + m.height, m.format))" "$work/out.png"
