#!/usr/bin/env bash
# The pod sandbox ("pause") image: registry.k8s.io is out of reach, so it is built FROM scratch around the pause
# binary that build-kubernetes.sh compiles from the kubernetes module's build/pause/linux/pause.c. Prints its name.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/versions.sh"
source "$here/podman-env.sh"
image="localhost/upscaler/pause:$K8S_VERSION"
if ! podman image exists "$image"; then
  ctx="$(mktemp -d)"
  trap 'rm -rf "$ctx"' EXIT
  cp "$K8S_BIN/pause" "$ctx/pause"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$ctx/Containerfile"
  podman build --quiet -t "$image" "$ctx" >/dev/null
fi
echo "$image"
