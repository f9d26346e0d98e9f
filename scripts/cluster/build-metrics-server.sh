#!/usr/bin/env bash
# metrics-server $METRICS_SERVER_VERSION from the Go module proxy into $K8S_BIN (once per version). It serves the
# resource metrics API (metrics.k8s.io) that the processors' HorizontalPodAutoscaler reads CPU from.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/versions.sh"
bin="$K8S_BIN/metrics-server-$METRICS_SERVER_VERSION"
[ -x "$bin" ] && { echo "$bin"; exit 0; }
mkdir -p "$K8S_BIN"
echo "[metrics-server] building $METRICS_SERVER_VERSION (go install, a few minutes)" >&2
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
(cd /tmp && CGO_ENABLED=0 GOBIN="$out" GOFLAGS=-buildvcs=false nice -n 5 go install -trimpath -ldflags "-s -w" \
  "sigs.k8s.io/metrics-server/cmd/metrics-server@$METRICS_SERVER_VERSION")
mv "$out/metrics-server" "$bin"
echo "$bin"
