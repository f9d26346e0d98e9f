# Sourced by scripts/cluster/*.sh: where the local cluster lives and its fixed addresses.
STATE="${CLUSTER_STATE:-/var/tmp/upscaler-cluster}"
NAMESPACE="${CLUSTER_NAMESPACE:-upscaler}"
RELEASE="${CLUSTER_RELEASE:-upscaler}"
# The pods' bridge; its gateway address is the node's own address (apiserver, kubelet, NodePorts, the managed
# services). Nothing of the cluster listens on this machine's other addresses.
BRIDGE=upscaler0
NODE_IP=10.244.0.1
POD_CIDR=10.244.0.0/24
SERVICE_CIDR=10.96.0.0/16
API_SERVICE_IP=10.96.0.1
NODE_NAME="$(hostname | tr '[:upper:]' '[:lower:]')"
API_NODE_PORT=30080
ETCD_PORT=23790
PG_PORT=55432
KAFKA_PORT=59092
MINIO_PORT=59000
PG_BIN=/usr/lib/postgresql/15/bin
CONTAINERD_SOCK="$STATE/containerd/containerd.sock"

# True when every process of a started cluster is alive.
cluster_running() {
  [ -f "$STATE/cluster.env" ] || return 1
  local f
  for f in "$STATE"/pids/*.pid; do
    [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null || return 1
  done
}
