#!/usr/bin/env bash
# Builds the service images from the repository's Dockerfile with podman (rootful, runc), on the base images of
# build-base-images.sh, so that nothing comes from a container registry. Prints one line per image with its build
# time and size, then `IMAGE_TAG=<tag>` on stdout.
#   IMAGE_TAG     tag to build (default: the commit, plus -dev<time> when the tree has changes)
#   SERVICES      which images (default: api billing processor webhooks)
#   IMAGE_PREFIX  repository prefix (default: localhost/upscaler/upscaler, giving localhost/upscaler/upscaler-api)
# Push them to your own registry with `podman push <image> <registry>/<path>` (docs/kubernetes.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/versions.sh"
source "$here/podman-env.sh"
log() { printf '[images] %s\n' "$*" >&2; }

if [ -z "${IMAGE_TAG:-}" ]; then
  IMAGE_TAG="$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo dev)"
  if [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]; then IMAGE_TAG="$IMAGE_TAG-dev$(date +%s)"; fi
fi
SERVICES="${SERVICES:-api billing processor webhooks}"
IMAGE_PREFIX="${IMAGE_PREFIX:-localhost/upscaler/upscaler}"

node_image="$(bash "$here/build-base-images.sh")"
for svc in $SERVICES; do
  start=$SECONDS
  image="$IMAGE_PREFIX-$svc:$IMAGE_TAG"
  # The first three stages do not depend on SERVICE: podman's layer cache builds them once for every image.
  if ! podman build --layers --quiet --build-arg "NODE_IMAGE=$node_image" --build-arg "SERVICE=$svc" \
      -t "$image" -f "$root/Dockerfile" "$root" >"$CLUSTER_CACHE/build-$svc.log" 2>&1; then
    tail -40 "$CLUSTER_CACHE/build-$svc.log" >&2
    log "building $image failed (full log: $CLUSTER_CACHE/build-$svc.log)"
    exit 1
  fi
  user="$(podman image inspect --format '{{.Config.User}}' "$image")"
  case "${user%%:*}" in ''|0|root) log "$image runs as root ('$user')"; exit 1 ;; esac
  size="$(podman image inspect --format '{{.Size}}' "$image")"
  log "$(printf '%-52s %4d s  %5d MB  user %s' "$image" $((SECONDS - start)) $((size / 1000000)) "$user")"
done
echo "IMAGE_TAG=$IMAGE_TAG"
