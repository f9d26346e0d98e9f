#!/usr/bin/env bash
# metrics-server $METRICS_SERVER_VERSION from the Go module proxy into $K8S_BIN (once per version). It serves the
# resource metrics API (metrics.k8s.io) that the processors' HorizontalPodAutoscaler reads CPU from.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/versions.sh"
bin="$K8S_BIN/metrics-server-$METRICS_SERVER_VERSION"
[ -x "$bin" ] && { echo "$bin"; exit 0; }
mkdir -p "$K8S_BIN"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "[metrics-server] building $METRICS_SERVER_VERSION (go, a few minutes)" >&2
cd "$work"
go mod init local/msbuild >/dev/null 2>&1
GOFLAGS=-buildvcs=false go get "sigs.k8s.io/metrics-server@$METRICS_SERVER_VERSION" >/dev/null 2>&1
CGO_ENABLED=0 GOFLAGS=-buildvcs=false nice -n 5 go build -trimpath -ldflags "-s -w" -o "$bin" sigs.k8s.io/metrics-server/cmd/metrics-server
echo "$bin"
