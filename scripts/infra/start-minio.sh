#!/usr/bin/env bash
# Starts MinIO (single drive) on 127.0.0.1:<port> (UPSCALE_INFRA_HOST), console on 127.0.0.1:<consolePort>, data under
# <dataDir>/data, in the background; pid in <dataDir>/minio.pid, log in <dataDir>/minio.log.
# Credentials: MINIO_ROOT_USER / MINIO_ROOT_PASSWORD (defaults minioadmin / minioadmin, local use only).
# Usage: start-minio.sh <dataDir> <port> [consolePort (default port+1)]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/lib.sh"

[ $# -ge 2 ] || { echo "usage: $0 <dataDir> <port> [consolePort]" >&2; exit 2; }
data_dir="$(mkdir -p "$1" && cd "$1" && pwd)"
port="$2"
console_port="${3:-$((port + 1))}"
pidfile="${data_dir}/minio.pid"

if [ -f "${pidfile}" ] && kill -0 "$(cat "${pidfile}")" 2>/dev/null; then
  log "minio already running (pid $(cat "${pidfile}"))"
  exit 0
fi

binary="$("${here}/install-minio.sh")"
mkdir -p "${data_dir}/data"
: >"${data_dir}/minio.log"
MINIO_ROOT_USER="${MINIO_ROOT_USER:-minioadmin}" \
MINIO_ROOT_PASSWORD="${MINIO_ROOT_PASSWORD:-minioadmin}" \
MINIO_BROWSER="${MINIO_BROWSER:-on}" \
MINIO_UPDATE=off \
  nohup "${binary}" server "${data_dir}/data" \
    --address "${INFRA_HOST}:${port}" --console-address "${INFRA_HOST}:${console_port}" --quiet \
    >>"${data_dir}/minio.log" 2>&1 </dev/null &
pid=$!
echo "${pid}" >"${pidfile}"
watch_owner "${pid}" "${pidfile}"

timeout="${MINIO_START_TIMEOUT:-60}"
for _ in $(seq 1 $((timeout * 4))); do
  if ! kill -0 "${pid}" 2>/dev/null; then
    log "minio exited during start-up; log:"
    show_start_failure "${data_dir}/minio.log"
    rm -f "${pidfile}"
    exit 1
  fi
  # The readiness endpoint answers 200 once the drive is online.
  if command -v curl >/dev/null; then
    ready() { curl -fsS -o /dev/null "http://${INFRA_HOST}:${port}/minio/health/ready" 2>/dev/null; }
  else
    ready() { wait_for_port "${port}" 1; }
  fi
  if ready; then
    log "minio ready on ${INFRA_HOST}:${port} (console ${INFRA_HOST}:${console_port}, pid ${pid})"
    exit 0
  fi
  sleep 0.25
done
log "minio did not become ready in ${timeout}s"
show_start_failure "${data_dir}/minio.log"
stop_pidfile "${pidfile}" 5
exit 1
