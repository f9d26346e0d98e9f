#!/usr/bin/env bash
# Copies images from podman's store into the local cluster's containerd (namespace k8s.io), skipping those it has.
# Usage: load-images.sh IMAGE...   (names as podman knows them, e.g. localhost/upscaler/upscaler-api:TAG)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/podman-env.sh"
source "$here/cluster-env.sh"
ctr_() { ctr --address "$CONTAINERD_SOCK" -n k8s.io "$@"; }
have="$(ctr_ images ls -q)"
missing=()
for image in "$@"; do grep -qxF "$image" <<<"$have" || missing+=("$image"); done
[ ${#missing[@]} -eq 0 ] && exit 0
tar="$(mktemp -p /var/tmp upscaler-images-XXXXXX.tar)"
trap 'rm -f "$tar"' EXIT
# One archive: layers the images share are written once.
podman save -q -m --format docker-archive -o "$tar.tmp" "${missing[@]}" && mv "$tar.tmp" "$tar"
ctr_ images import --no-unpack "$tar" >/dev/null
echo "[cluster] imported ${missing[*]}" >&2
