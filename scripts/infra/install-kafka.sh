#!/usr/bin/env bash
# Fetches an Apache Kafka broker (KRaft) as jars from Maven Central into the cache and prints the
# folder (it holds libs/ and log4j.properties). A second run finds the folder and returns at once.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/lib.sh"

KAFKA_VERSION="${KAFKA_VERSION:-3.9.2}"
home="${INFRA_CACHE}/kafka/${KAFKA_VERSION}"

if [ -f "${home}/.complete" ]; then
  echo "${home}"
  exit 0
fi

command -v java >/dev/null || { log "java (17+) is required to run Kafka"; exit 1; }
command -v mvn >/dev/null || { log "maven is required to fetch Kafka"; exit 1; }
mkdir -p "${INFRA_CACHE}/kafka"
exec 9>"${INFRA_CACHE}/kafka.lock"
flock 9
if [ ! -f "${home}/.complete" ]; then
  log "fetching kafka ${KAFKA_VERSION} jars from Maven Central (first run only)"
  started=$(date +%s)
  rm -rf "${home}.tmp"
  mkdir -p "${home}.tmp/libs"
  nice -n 10 mvn -q -B -f "${here}/kafka/pom.xml" -Dkafka.version="${KAFKA_VERSION}" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="${home}.tmp/libs"
  cp "${here}/kafka/log4j.properties" "${home}.tmp/log4j.properties"
  touch "${home}.tmp/.complete"
  rm -rf "${home}"
  mv "${home}.tmp" "${home}"
  log "kafka fetched in $(( $(date +%s) - started ))s"
fi
echo "${home}"
