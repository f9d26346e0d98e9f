#!/usr/bin/env bash
# Starts a single-node Kafka (KRaft: broker and controller in one JVM) on 127.0.0.1:<port> (UPSCALE_INFRA_HOST), data under
# <dataDir>, in the background; pid in <dataDir>/kafka.pid, log in <dataDir>/kafka.log.
# Usage: start-kafka.sh <dataDir> <port> [controllerPort (default port+1)]
# Starting again on the same dataDir keeps the topics and offsets (used by the fault tests).
# KAFKA_VERSION picks the broker (install-kafka.sh, default there); 3.9.x and 4.x take the same config.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/lib.sh"

[ $# -ge 2 ] || { echo "usage: $0 <dataDir> <port> [controllerPort]" >&2; exit 2; }
data_dir="$(mkdir -p "$1" && cd "$1" && pwd)"
port="$2"
controller_port="${3:-$((port + 1))}"
pidfile="${data_dir}/kafka.pid"

if [ -f "${pidfile}" ] && kill -0 "$(cat "${pidfile}")" 2>/dev/null; then
  log "kafka already running (pid $(cat "${pidfile}"))"
  exit 0
fi

home="$("${here}/install-kafka.sh")"
partitions="${KAFKA_PARTITIONS:-6}"

cat > "${data_dir}/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@${INFRA_HOST}:${controller_port}
listeners=PLAINTEXT://${INFRA_HOST}:${port},CONTROLLER://${INFRA_HOST}:${controller_port}
advertised.listeners=PLAINTEXT://${INFRA_HOST}:${port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=${data_dir}/logs
num.partitions=${partitions}
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=6
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
num.network.threads=2
num.io.threads=4
log.flush.interval.messages=1
log.retention.hours=168
PROPS

java_opts=(${KAFKA_JAVA_OPTS:--Xms128m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1})
java_opts+=(-Djava.awt.headless=true)
# Kafka 4.x logs with log4j2, 3.x with reload4j (log4j 1.x): install-kafka.sh left the matching config.
if [ -f "${home}/log4j2.properties" ]; then
  java_opts+=("-Dlog4j2.configurationFile=file:${home}/log4j2.properties")
else
  java_opts+=("-Dlog4j.configuration=file:${home}/log4j.properties")
fi

# Format the storage once; a restart on the same folder reuses it.
if [ ! -f "${data_dir}/logs/meta.properties" ]; then
  cluster_id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
  java "${java_opts[@]}" -cp "${home}/libs/*" kafka.tools.StorageTool format \
    --cluster-id="${cluster_id}" -c "${data_dir}/server.properties" --ignore-formatted >"${data_dir}/format.log" 2>&1 \
    || { cat "${data_dir}/format.log" >&2; exit 1; }
fi

: >"${data_dir}/kafka.log"
nohup java "${java_opts[@]}" -cp "${home}/libs/*" kafka.Kafka "${data_dir}/server.properties" \
  >>"${data_dir}/kafka.log" 2>&1 </dev/null &
pid=$!
echo "${pid}" >"${pidfile}"
watch_owner "${pid}" "${pidfile}"

timeout="${KAFKA_START_TIMEOUT:-90}"
for _ in $(seq 1 $((timeout * 4))); do
  if ! kill -0 "${pid}" 2>/dev/null; then
    log "kafka exited during start-up; last log lines:"
    show_start_failure "${data_dir}/kafka.log"
    rm -f "${pidfile}"
    exit 1
  fi
  if grep -q "Kafka Server started" "${data_dir}/kafka.log" && wait_for_port "${port}" 1; then
    log "kafka $(basename "${home}") ready on ${INFRA_HOST}:${port} (pid ${pid})"
    exit 0
  fi
  sleep 0.25
done
log "kafka did not become ready in ${timeout}s"
show_start_failure "${data_dir}/kafka.log"
stop_pidfile "${pidfile}" 5
exit 1
