#!/usr/bin/env bash
# Stops the MinIO started by start-minio.sh on <dataDir>.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 <dataDir>" >&2; exit 2; }
stop_pidfile "$1/minio.pid" "${MINIO_STOP_GRACE:-10}"
