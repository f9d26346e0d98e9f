#!/usr/bin/env bash
# Stops the Kafka started by start-kafka.sh on <dataDir> (TERM = controlled shutdown, KILL after 30 s).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 <dataDir>" >&2; exit 2; }
stop_pidfile "$1/kafka.pid" "${KAFKA_STOP_GRACE:-30}"
