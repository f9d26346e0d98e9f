# Sourced by scripts/cluster/*.sh: podman and buildah read the project's containers.conf.
export CONTAINERS_CONF="${CONTAINERS_CONF:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/containers.conf}"
