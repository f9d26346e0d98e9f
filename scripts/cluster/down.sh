#!/usr/bin/env bash
# `npm run cluster:down`: removes everything `npm run cluster:up` started, by pid and by path: the pods'
# containers (their containerd shims), the node and control-plane processes, Postgres, Kafka and MinIO, the
# mounts under the state folder, kube-proxy's and the CNI plugins' iptables rules, the bridge, the pods' cgroups,
# and the state folder itself. The caches (binaries, base images, podman's image store) stay.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/versions.sh"
source "$here/cluster-env.sh"
source "$root/scripts/infra/lib.sh"
set +e  # lib.sh sets -e: a step that finds nothing to remove must not stop the others
log() { printf '[cluster] %s %s\n' "$(date +%T)" "$*" >&2; }

[ -e "$STATE" ] || ip link show "$BRIDGE" >/dev/null 2>&1 || { log "nothing to remove"; exit 0; }
t0=$SECONDS

stop_pid() { # name [grace seconds]
  local f="$STATE/pids/$1.pid" grace="${2:-10}"
  [ -f "$f" ] || return 0
  stop_pidfile "$f" "$grace"
}

# The kubelet first, so that it restarts nothing; then every container, through its shim (each shim is the
# parent of its container's processes, which runc placed in the pods' cgroups).
stop_pid kubelet 10
if [ -S "$CONTAINERD_SOCK" ] || [ -d "$STATE/containerd" ]; then
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $CONTAINERD_SOCK" 2>/dev/null); do
    for child in $(pgrep -P "$pid"); do kill -KILL "$child" 2>/dev/null; done
    kill -KILL "$pid" 2>/dev/null
  done
fi
# Processes left in the pods' cgroups (a container's children), then the cgroups themselves.
for hierarchy in /sys/fs/cgroup/*/kubepods; do
  [ -d "$hierarchy" ] || continue
  find "$hierarchy" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -KILL 2>/dev/null
done
sleep 1
for hierarchy in /sys/fs/cgroup/*/kubepods; do
  [ -d "$hierarchy" ] && find "$hierarchy" -depth -type d -exec rmdir {} + 2>/dev/null
done
for name in coredns metrics-server kube-proxy kube-scheduler kube-controller-manager containerd; do stop_pid "$name" 10; done
# kube-apiserver before etcd: with etcd gone first it hangs in its graceful shutdown.
stop_pid kube-apiserver 15
stop_pid etcd 10

stop_pidfile "$STATE/kafka/kafka.pid" 20
stop_pidfile "$STATE/minio/minio.pid" 10
if [ -f "$STATE/postgres/data/postmaster.pid" ]; then
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$STATE/postgres/data" -m fast -w stop >/dev/null 2>&1 \
    || kill -KILL "$(head -1 "$STATE/postgres/data/postmaster.pid")" 2>/dev/null
fi

# Mounts under the state folder (overlay snapshots, pod volumes, sandbox network namespaces), deepest first.
grep -o " $STATE[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
# Network namespaces of pod sandboxes (containerd 1.6 puts them under /var/run/netns as cni-*).
for ns in /var/run/netns/cni-*; do
  [ -e "$ns" ] || continue
  umount -l "$ns" 2>/dev/null; rm -f "$ns"
done

# iptables: kube-proxy's chains, then the CNI plugins' (bridge ipMasq, portmap) and the kubelet's.
if [ -x "$K8S_BIN/kube-proxy" ]; then "$K8S_BIN/kube-proxy" --cleanup >/dev/null 2>&1; fi
for cmd in iptables ip6tables; do
  command -v "$cmd" >/dev/null || continue
  for table in filter nat mangle; do
    "$cmd" -t "$table" -S 2>/dev/null | grep -E '^-A .*(KUBE-|CNI-)' | sed 's/^-A/-D/' | while read -r rule; do
      eval "$cmd -t $table $rule" 2>/dev/null
    done
    for chain in $("$cmd" -t "$table" -S 2>/dev/null | sed -n 's/^-N \(\(KUBE\|CNI\)-[^ ]*\).*/\1/p'); do
      "$cmd" -t "$table" -F "$chain" 2>/dev/null
    done
    for chain in $("$cmd" -t "$table" -S 2>/dev/null | sed -n 's/^-N \(\(KUBE\|CNI\)-[^ ]*\).*/\1/p'); do
      "$cmd" -t "$table" -X "$chain" 2>/dev/null
    done
  done
done
ip link delete "$BRIDGE" 2>/dev/null

rm -rf "$STATE"
log "removed in $((SECONDS - t0)) s"
