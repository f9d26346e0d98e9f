#!/usr/bin/env bash
# Gives the images the cluster runs (the tag in $STATE/image-tag) a second tag and loads it into the node: a new
# image tag for `helm upgrade` without a rebuild (the cluster tier's upgrade scenario). Usage: retag-images.sh NEW_TAG
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/podman-env.sh"
source "$here/cluster-env.sh"
new="$1"
old="$(cat "$STATE/image-tag")"
images=()
for svc in api billing processor webhooks; do
  podman tag "localhost/upscaler/upscaler-$svc:$old" "localhost/upscaler/upscaler-$svc:$new"
  images+=("localhost/upscaler/upscaler-$svc:$new")
done
bash "$here/load-images.sh" "${images[@]}"
