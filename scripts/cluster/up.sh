#!/usr/bin/env bash
# `npm run cluster:up`: a single-node Kubernetes on this machine, from the project's own files and the package
# registries only, with the chart installed on it (docs/kubernetes.md, "A local cluster").
#
#   1. host packages (Debian), Kubernetes $K8S_VERSION and CoreDNS built from the Go module proxy (cached by
#      version under $CLUSTER_CACHE), helm;
#   2. the service images (build-images.sh; podman's layer cache makes an unchanged tree a no-op);
#   3. a bridge network 10.244.0.0/24 whose gateway 10.244.0.1 is the node's address;
#   4. Postgres, Kafka and MinIO on 10.244.0.1, outside the cluster: they play the managed services a platform team
#      runs the chart against, reached from the pods through Services of the same names (postgres, kafka, minio);
#   5. etcd, containerd (runc, the CNI bridge), kube-apiserver, kube-controller-manager, kube-scheduler, kubelet,
#      kube-proxy (iptables), CoreDNS and metrics-server (the autoscaler's CPU metric) as processes of this machine;
#   6. `helm install` of charts/upscaler with values-small.yaml, the local overlay (scripts/cluster/values-local.yaml)
#      and $CLUSTER_VALUES (a values file of the caller's); waits until every pod is Ready; `helm test`.
#
# Prints, one per line: BASE_URL=... (the api's NodePort on 10.244.0.1), OPERATOR_TOKEN_FILE=..., KUBECONFIG=...
# Run again while it is up: it reinstalls nothing and prints the same lines. `npm run cluster:down` removes it all.
# Needs root (containers, iptables, mounts), as the machines this project runs its tests on give.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/versions.sh"
source "$here/podman-env.sh"
source "$here/cluster-env.sh"
source "$here/pki.sh"

log() { printf '[cluster] %s %s\n' "$(date +%T)" "$*" >&2; }
die() { log "$*"; exit 1; }
t0=$SECONDS
[ "$(id -u)" = 0 ] || die "run as root (containers, iptables, mounts)"

if cluster_running; then
  log "already up (state in $STATE)"
  cat "$STATE/cluster.env"
  exit 0
fi
# One cluster:up at a time: two would share $STATE (and its passwords), the bridge and the ports. A pid file, not
# flock: the daemons started below would inherit a lock's descriptor and hold it for the cluster's life.
mkdir -p "$CLUSTER_CACHE"
lock="$CLUSTER_CACHE/up.pid"
if [ -f "$lock" ] && kill -0 "$(cat "$lock")" 2>/dev/null; then die "another cluster:up is running (pid $(cat "$lock"))"; fi
echo $$ >"$lock"
trap 'rm -f "$lock"' EXIT
# A half-started cluster from an earlier run goes first.
[ -e "$STATE" ] && bash "$here/down.sh"

# --- 1. tools -------------------------------------------------------------------------------------------------
bash "$here/install-host-packages.sh"
bash "$here/build-kubernetes.sh"
helm="$(bash "$here/install-helm.sh")"
export PATH="$K8S_BIN:$PATH"

# --- 2. images --------------------------------------------------------------------------------------------------
if [ -z "${IMAGE_TAG:-}" ] || [ "${SKIP_IMAGE_BUILD:-}" != 1 ]; then
  IMAGE_TAG="$(bash "$here/build-images.sh" | sed -n 's/^IMAGE_TAG=//p')"
fi
[ -n "$IMAGE_TAG" ] || die "no image tag"
pause_image="$(bash "$here/build-pause-image.sh")"
log "images ready (tag $IMAGE_TAG) after $((SECONDS - t0)) s"

mkdir -p "$STATE"/{pids,logs,pki,etcd,containerd,kubelet,cni/net.d,cni/ipam,pod-logs}
echo "$IMAGE_TAG" >"$STATE/image-tag"

# --- 3. network -------------------------------------------------------------------------------------------------
if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
  ip link add "$BRIDGE" type bridge
  ip addr add "$NODE_IP/24" dev "$BRIDGE"
fi
ip link set "$BRIDGE" up
sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1
cat >"$STATE/cni/net.d/10-upscaler.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "upscaler",
  "plugins": [
    {
      "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
      "ipam": {
        "type": "host-local", "dataDir": "$STATE/cni/ipam",
        "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
JSON

# --- 4. the managed services, on the node's bridge address ------------------------------------------------------
secret() { head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24; }
pg_password="$(secret)"; minio_user="upscaler"; minio_password="$(secret)"; operator_token="op-$(secret)"
printf '%s\n' "$operator_token" >"$STATE/operator-token"
chmod 600 "$STATE/operator-token"
mkdir -p "$STATE/postgres"
chown postgres:postgres "$STATE/postgres"
printf '%s\n' "$pg_password" >"$STATE/pki/pg-password"
chown postgres "$STATE/pki/pg-password"
chmod 755 "$STATE" "$STATE/pki"
runuser -u postgres -- "$PG_BIN/initdb" -D "$STATE/postgres/data" -U upscaler --pwfile="$STATE/pki/pg-password" \
  -A scram-sha-256 --no-sync >"$STATE/logs/initdb.log"
cat >>"$STATE/postgres/data/postgresql.conf" <<CONF
listen_addresses = '$NODE_IP,127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$STATE/postgres'
max_connections = 200
fsync = off
CONF
echo "host all all $POD_CIDR scram-sha-256" >>"$STATE/postgres/data/pg_hba.conf"
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$STATE/postgres/data" -l "$STATE/postgres/postgres.log" -w start >/dev/null
PGPASSWORD="$pg_password" "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U upscaler upscaler
(
  export UPSCALE_INFRA_HOST="$NODE_IP"
  MINIO_ROOT_USER="$minio_user" MINIO_ROOT_PASSWORD="$minio_password" MINIO_BROWSER=off \
    bash "$root/scripts/infra/start-minio.sh" "$STATE/minio" "$MINIO_PORT" "$((MINIO_PORT + 1))"
  KAFKA_PARTITIONS=12 bash "$root/scripts/infra/start-kafka.sh" "$STATE/kafka" "$KAFKA_PORT" "$((KAFKA_PORT + 1))"
) 2>&1 | sed 's/^/  /' >&2
log "Postgres :$PG_PORT, Kafka :$KAFKA_PORT, MinIO :$MINIO_PORT on $NODE_IP after $((SECONDS - t0)) s"

# --- 5. the node ------------------------------------------------------------------------------------------------
pki="$STATE/pki"
ca_init "$pki"
server="https://$NODE_IP:6443"
make_cert "$pki" apiserver kube-apiserver "" \
  "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1,IP:$NODE_IP,IP:$API_SERVICE_IP" serverAuth
make_cert "$pki" apiserver-kubelet kube-apiserver-kubelet-client system:masters
make_cert "$pki" front-proxy front-proxy-client
make_cert "$pki" admin kubernetes-admin system:masters
make_cert "$pki" controller-manager system:kube-controller-manager
make_cert "$pki" scheduler system:kube-scheduler
make_cert "$pki" proxy system:kube-proxy
make_cert "$pki" kubelet "system:node:$NODE_NAME" system:nodes "DNS:$NODE_NAME,IP:$NODE_IP,IP:127.0.0.1" serverAuth,clientAuth
# For the suites' HTTPS receivers on the node's address (webhook endpoints, image URLs): the pods trust this CA.
make_cert "$pki" receiver "$NODE_IP" "" "IP:$NODE_IP,DNS:localhost,IP:127.0.0.1" serverAuth
chmod 644 "$pki/receiver.key"
for who in admin controller-manager scheduler proxy kubelet; do
  make_kubeconfig "$STATE/$who.kubeconfig" "$server" "$pki/ca.crt" "$pki/$who.crt" "$pki/$who.key" "$who"
done

start_daemon() { # name command...: in its own session, so that it outlives this script; pid and log in $STATE
  local name="$1"; shift
  setsid nohup "$@" >"$STATE/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/pids/$name.pid"
}
wait_for() { # seconds what command...
  local seconds="$1" what="$2"; shift 2
  local until=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $until ] || die "$what did not come up in $seconds s (logs: $STATE/logs)"
    sleep 1
  done
}

start_daemon etcd etcd --name upscaler --data-dir "$STATE/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
  --initial-cluster "upscaler=http://127.0.0.1:$((ETCD_PORT + 1))" --listen-metrics-urls "" --quota-backend-bytes 2147483648

cat >"$STATE/containerd/config.toml" <<TOML
version = 2
# The image store outlives the cluster (a cache, like the binaries): a second cluster:up imports only new images.
root = "$CLUSTER_CACHE/containerd-root"
state = "$STATE/containerd/state"
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$CONTAINERD_SOCK.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  # The kubelet asks -998 for sandboxes; a root without CAP_SYS_RESOURCE cannot set a negative oom_score_adj, and
  # runc then fails every sandbox ("can't get final child's PID from pipe"). Clamp to containerd's own.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    snapshotter = "overlayfs"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "$(command -v runc)"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
TOML
start_daemon containerd containerd --config "$STATE/containerd/config.toml"
wait_for 30 containerd ctr --address "$CONTAINERD_SOCK" version

# The images, into containerd's k8s.io namespace (pullPolicy Never: no registry is involved).
images=("$pause_image")
for svc in api billing processor webhooks; do images+=("localhost/upscaler/upscaler-$svc:$IMAGE_TAG"); done
IMAGE_TAG="$IMAGE_TAG" bash "$here/load-images.sh" "${images[@]}"
log "images in containerd after $((SECONDS - t0)) s"

wait_for 30 etcd etcdctl --endpoints "http://127.0.0.1:$ETCD_PORT" endpoint health
start_daemon kube-apiserver kube-apiserver --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --advertise-address "$NODE_IP" --bind-address "$NODE_IP" --secure-port 6443 \
  --service-cluster-ip-range "$SERVICE_CIDR" --service-node-port-range 30000-32767 \
  --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --allow-privileged=true \
  --client-ca-file "$pki/ca.crt" --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
  --kubelet-client-certificate "$pki/apiserver-kubelet.crt" --kubelet-client-key "$pki/apiserver-kubelet.key" \
  --kubelet-certificate-authority "$pki/ca.crt" --kubelet-preferred-address-types InternalIP \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --requestheader-client-ca-file "$pki/ca.crt" --requestheader-allowed-names front-proxy-client \
  --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
  --requestheader-extra-headers-prefix X-Remote-Extra- \
  --proxy-client-cert-file "$pki/front-proxy.crt" --proxy-client-key-file "$pki/front-proxy.key" \
  --enable-aggregator-routing=true --profiling=false
export KUBECONFIG="$STATE/admin.kubeconfig"
wait_for 90 kube-apiserver kubectl get --raw /readyz
start_daemon kube-controller-manager kube-controller-manager --kubeconfig "$STATE/controller-manager.kubeconfig" \
  --authentication-kubeconfig "$STATE/controller-manager.kubeconfig" --authorization-kubeconfig "$STATE/controller-manager.kubeconfig" \
  --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
  --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" --root-ca-file "$pki/ca.crt" \
  --service-account-private-key-file "$pki/sa.key" --horizontal-pod-autoscaler-sync-period 10s
start_daemon kube-scheduler kube-scheduler --kubeconfig "$STATE/scheduler.kubeconfig" \
  --authentication-kubeconfig "$STATE/scheduler.kubeconfig" --authorization-kubeconfig "$STATE/scheduler.kubeconfig" \
  --bind-address 127.0.0.1 --leader-elect=false

cat >"$STATE/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine's cgroups are hybrid v1 and cannot move to v2; Kubernetes 1.35+ refuses v1 unless told.
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
failSwapOn: false
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $pki/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $pki/kubelet.crt
tlsPrivateKeyFile: $pki/kubelet.key
clusterDomain: cluster.local
clusterDNS: [$NODE_IP]
podLogsDir: $STATE/pod-logs
evictionHard: {memory.available: 200Mi, nodefs.available: 5%, imagefs.available: 5%}
imageGCHighThresholdPercent: 100
serializeImagePulls: false
YAML
start_daemon kubelet kubelet --config "$STATE/kubelet/config.yaml" --kubeconfig "$STATE/kubelet.kubeconfig" \
  --node-ip "$NODE_IP" --hostname-override "$NODE_NAME" --root-dir "$STATE/kubelet"
cat >"$STATE/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clusterCIDR: $POD_CIDR
hostnameOverride: $NODE_NAME
clientConnection: {kubeconfig: $STATE/proxy.kubeconfig}
conntrack: {maxPerCore: 0}
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
# NodePorts answer on the node's bridge address only, not on every address of this machine.
nodePortAddresses: ["$NODE_IP/32"]
YAML
start_daemon kube-proxy kube-proxy --config "$STATE/kube-proxy.yaml"
cat >"$STATE/Corefile" <<COREFILE
.:53 {
  bind $NODE_IP
  errors
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $STATE/admin.kubeconfig upscaler-local
    pods insecure
  }
  cache 30
}
COREFILE
start_daemon coredns coredns -conf "$STATE/Corefile"
wait_for 120 "node $NODE_NAME" kubectl wait --for=condition=Ready "node/$NODE_NAME" --timeout=5s
log "node $NODE_NAME Ready after $((SECONDS - t0)) s"

# metrics-server, as a process of the node: the resource metrics API (metrics.k8s.io) that the processors'
# HorizontalPodAutoscaler reads CPU from, registered through the aggregation layer (the apiserver reaches it at
# $NODE_IP:4443 through a Service without selector; its serving certificate is signed by the cluster's CA).
make_cert "$pki" metrics-server system:metrics-server "" "DNS:metrics-server.kube-system.svc,IP:$NODE_IP" serverAuth,clientAuth
make_kubeconfig "$STATE/metrics-server.kubeconfig" "$server" "$pki/ca.crt" "$pki/metrics-server.crt" "$pki/metrics-server.key" metrics-server
NODE_IP="$NODE_IP" CA_BUNDLE="$(base64 -w0 "$pki/ca.crt")" envsubst '$NODE_IP $CA_BUNDLE' <"$here/manifests/metrics-server.yaml" \
  | kubectl apply -f - >/dev/null
start_daemon metrics-server "$(bash "$here/build-metrics-server.sh")" --secure-port 4443 --bind-address "$NODE_IP" \
  --tls-cert-file "$pki/metrics-server.crt" --tls-private-key-file "$pki/metrics-server.key" \
  --kubeconfig "$STATE/metrics-server.kubeconfig" --authentication-kubeconfig "$STATE/metrics-server.kubeconfig" \
  --authorization-kubeconfig "$STATE/metrics-server.kubeconfig" \
  --kubelet-client-certificate "$pki/metrics-server.crt" --kubelet-client-key "$pki/metrics-server.key" \
  --kubelet-certificate-authority "$pki/ca.crt" --kubelet-preferred-address-types InternalIP \
  --kubelet-use-node-status-port --metric-resolution 15s

# --- 6. the chart -----------------------------------------------------------------------------------------------
kubectl create namespace "$NAMESPACE" >/dev/null
kubectl -n "$NAMESPACE" create secret generic upscaler-database \
  --from-literal=database-url="postgres://upscaler:$pg_password@postgres:5432/upscaler" >/dev/null
kubectl -n "$NAMESPACE" create secret generic upscaler-operator --from-file=operator-token="$STATE/operator-token" >/dev/null
kubectl -n "$NAMESPACE" create configmap upscaler-local-ca --from-file=ca.crt="$pki/ca.crt" >/dev/null
kubectl -n "$NAMESPACE" create secret generic upscaler-s3 \
  --from-literal=access-key="$minio_user" --from-literal=secret-key="$minio_password" >/dev/null
# The managed services under stable in-cluster names: Services without selectors, each with one EndpointSlice.
for svc in "postgres 5432 $PG_PORT" "kafka 9092 $KAFKA_PORT" "minio 9000 $MINIO_PORT"; do
  set -- $svc
  kubectl -n "$NAMESPACE" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: {name: $1, labels: {app.kubernetes.io/part-of: upscaler-managed-services}}
spec:
  ports: [{name: tcp, port: $2, targetPort: $3, protocol: TCP}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: $1-external
  labels: {kubernetes.io/service-name: $1, endpointslice.kubernetes.io/managed-by: upscaler-cluster-up}
addressType: IPv4
ports: [{name: tcp, port: $3, protocol: TCP}]
endpoints: [{addresses: ["$NODE_IP"], conditions: {ready: true}}]
YAML
done

cat >"$STATE/values-generated.yaml" <<YAML
# Written by scripts/cluster/up.sh for this cluster.
image: {tag: "$IMAGE_TAG"}
YAML
values=(-f "$root/charts/upscaler/values-small.yaml" -f "$here/values-local.yaml" -f "$STATE/values-generated.yaml")
[ -n "${CLUSTER_VALUES:-}" ] && values+=(-f "$CLUSTER_VALUES")
log "helm install (waits until every pod is Ready)"
"$helm" install "$RELEASE" "$root/charts/upscaler" -n "$NAMESPACE" "${values[@]}" --wait --timeout 10m >"$STATE/logs/helm-install.log" 2>&1 \
  || { kubectl -n "$NAMESPACE" get pods -o wide >&2; tail -20 "$STATE/logs/helm-install.log" >&2; die "helm install failed"; }
log "every pod Ready after $((SECONDS - t0)) s"
"$helm" test "$RELEASE" -n "$NAMESPACE" >"$STATE/logs/helm-test.log" 2>&1 \
  || { cat "$STATE/logs/helm-test.log" >&2; kubectl -n "$NAMESPACE" logs "$RELEASE-test-api-answers" >&2; die "helm test failed"; }
log "helm test passed"
# The autoscaler's metric: the first scrape comes within metrics-server's resolution (15 s).
wait_for 120 "the resource metrics API" kubectl get --raw "/apis/metrics.k8s.io/v1beta1/namespaces/$NAMESPACE/pods"

cat >"$STATE/cluster.env" <<ENV
BASE_URL=http://$NODE_IP:$API_NODE_PORT/api/v1
OPERATOR_TOKEN_FILE=$STATE/operator-token
KUBECONFIG=$STATE/admin.kubeconfig
ENV
log "up in $((SECONDS - t0)) s ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs)"
cat "$STATE/cluster.env"
