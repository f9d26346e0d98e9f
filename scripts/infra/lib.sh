#!/usr/bin/env bash
# Shared helpers for the infra scripts: one cache folder for everything fetched, so a second
# install on the same machine is instant (contributing/HELPERS.md: builds run with nice).
set -euo pipefail

INFRA_CACHE="${UPSCALE_INFRA_CACHE:-${HOME}/.cache/upscaler}"
mkdir -p "${INFRA_CACHE}"

# The address the servers listen on (and advertise): loopback, or the local cluster's bridge address, where pods
# reach them as the managed services of a real deployment (scripts/cluster/up.sh).
INFRA_HOST="${UPSCALE_INFRA_HOST:-127.0.0.1}"

log() { echo "[infra] $*" >&2; }

# Prints why a server failed to start from its log $1: the first error lines and their causes (a taken
# port is reported there, long before the shutdown lines a plain tail shows; the test helpers retry on
# fresh ports only when they see it, libs/testing/src/ports.ts), then the last 30 lines.
show_start_failure() {
  local logfile="$1"
  grep -m 20 -E 'ERROR|FATAL|Caused by|[Aa]ddress already in use|port is already in use' "${logfile}" >&2 || true
  echo "[infra] ... last lines:" >&2
  tail -n 30 "${logfile}" >&2
}

# Waits until something accepts TCP connections on $INFRA_HOST:$1 (at most $2 seconds).
wait_for_port() {
  local port="$1" timeout="${2:-60}" waited=0
  while ! (exec 3<>"/dev/tcp/${INFRA_HOST}/${port}") 2>/dev/null; do
    sleep 0.5
    waited=$((waited + 1))
    if [ "${waited}" -ge $((timeout * 2)) ]; then
      return 1
    fi
  done
  return 0
}

# Stops the process whose id is in pid file $1 (TERM, then KILL after $2 seconds).
stop_pidfile() {
  local pidfile="$1" grace="${2:-20}"
  [ -f "${pidfile}" ] || return 0
  local pid
  pid="$(cat "${pidfile}")"
  if kill -0 "${pid}" 2>/dev/null; then
    kill -TERM "${pid}" 2>/dev/null || true
    local i=0
    while kill -0 "${pid}" 2>/dev/null && [ "${i}" -lt $((grace * 4)) ]; do
      sleep 0.25
      i=$((i + 1))
    done
    if kill -0 "${pid}" 2>/dev/null; then
      log "pid ${pid} did not stop in ${grace}s; killing"
      kill -KILL "${pid}" 2>/dev/null || true
    fi
  fi
  rm -f "${pidfile}"
}

# When UPSCALE_INFRA_WATCH_PID is set (test helpers set it to their own pid), a small watcher stops
# the server once that process is gone, so a crashed or killed test run leaves no stray server.
watch_owner() {
  local server_pid="$1" pidfile="$2"
  local owner="${UPSCALE_INFRA_WATCH_PID:-}"
  [ -n "${owner}" ] || return 0
  (
    while kill -0 "${owner}" 2>/dev/null && kill -0 "${server_pid}" 2>/dev/null; do sleep 2; done
    if kill -0 "${server_pid}" 2>/dev/null; then
      kill -TERM "${server_pid}" 2>/dev/null || true
      sleep 20
      kill -KILL "${server_pid}" 2>/dev/null || true
    fi
    # A restart may have written a new pid file meanwhile: only ours is removed.
    if [ "$(cat "${pidfile}" 2>/dev/null)" = "${server_pid}" ]; then rm -f "${pidfile}"; fi
  ) </dev/null >/dev/null 2>&1 &
  disown || true
}
