#!/usr/bin/env bash
# Builds the Kubernetes node and control-plane binaries (kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet, kube-proxy, kubectl) of $K8S_VERSION from the Go module proxy, plus CoreDNS and the
# pause image's binary, into $CLUSTER_CACHE/kubernetes-$K8S_VERSION/bin. Once per version: a second run with the
# binaries present returns at once. About 10 min on 2 idle cores, 25 on busy ones.
#
# k8s.io/kubernetes requires its staging modules (k8s.io/api, client-go, ...) at the placeholder v0.0.0 and
# replaces them with ./staging paths, which Go applies only when it is the main module. So a wrapper module
# requires k8s.io/kubernetes and replaces each staging module with its published v0.x.y release.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/versions.sh"

log() { printf '[build-kubernetes] %s\n' "$*" >&2; }
bins="kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl"
done_stamp="$K8S_BIN/.complete"
if [ -f "$done_stamp" ]; then exit 0; fi

command -v go >/dev/null || { log "go is needed"; exit 1; }
mkdir -p "$K8S_BIN"
work="$CLUSTER_CACHE/kubernetes-$K8S_VERSION/module"
mkdir -p "$work"
exec 9>"$CLUSTER_CACHE/kubernetes-$K8S_VERSION/build.lock"
flock 9
[ -f "$done_stamp" ] && exit 0

staging_version="v0.${K8S_VERSION#v1.}"
start=$SECONDS
cd "$work"
export GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0
src="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')"
[ -d "$src" ] || { log "could not download k8s.io/kubernetes@$K8S_VERSION"; exit 1; }
{
  echo "module local/k8sbuild"
  echo
  echo "go 1.26.0"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  echo
  echo "replace ("
  sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/src/k8s.io/.*#\t\1 => \1 '"$staging_version"'#p' "$src/go.mod"
  echo ")"
} >go.mod
{
  echo "//go:build tools"
  echo
  echo "package tools"
  echo
  echo "import ("
  for b in $bins; do echo "	_ \"k8s.io/kubernetes/cmd/$b\""; done
  echo ")"
} >tools.go
log "resolving modules for k8s.io/kubernetes $K8S_VERSION (staging $staging_version)"
go mod tidy >/dev/null
minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags="$ldflags -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
done
for b in $bins; do
  log "building $b"
  go build -trimpath -ldflags "$ldflags" -o "$K8S_BIN/$b" "k8s.io/kubernetes/cmd/$b"
done
# The pause container's binary: registry.k8s.io is out of reach, and the kubernetes module ships its source.
gcc -Os -static -o "$K8S_BIN/pause" "$src/build/pause/linux/pause.c"
strip "$K8S_BIN/pause" 2>/dev/null || true
log "building coredns $COREDNS_VERSION"
GOBIN="$K8S_BIN" go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
"$K8S_BIN/kube-apiserver" --version >&2
touch "$done_stamp"
log "done in $((SECONDS - start)) s"
