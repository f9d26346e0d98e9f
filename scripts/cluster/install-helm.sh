#!/usr/bin/env bash
# helm $HELM_VERSION, built with `go install` once (cached by version); prints its path.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/versions.sh"
bin="$CLUSTER_CACHE/helm-$HELM_VERSION/helm"
if [ ! -x "$bin" ]; then
  gobin="$(go env GOPATH)/bin"
  # scripts/deploy/install-tools.sh builds the same version for the offline chart checks.
  if [ -x "$gobin/helm" ] && "$gobin/helm" version --template '{{.Version}}' 2>/dev/null | grep -qx "$HELM_VERSION"; then
    mkdir -p "$(dirname "$bin")" && cp "$gobin/helm" "$bin"
  else
    echo "[helm] building helm $HELM_VERSION (go install, a few minutes)" >&2
    (cd /tmp && GOBIN="$(dirname "$bin")" GOFLAGS=-buildvcs=false nice -n 5 go install -trimpath -ldflags "-s -w" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION")
  fi
fi
echo "$bin"
