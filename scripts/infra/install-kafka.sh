#!/usr/bin/env bash
# Fetches an Apache Kafka broker (KRaft) as jars from Maven Central into the cache and prints the
# folder (it holds libs/ and the logging config: log4j.properties for 3.x, log4j2.properties for 4.x).
# A second run finds the folder and returns at once. Only the folder goes to stdout (callers take it
# as the result); Maven's and our messages go to stderr.
# KAFKA_VERSION picks the version (default below); each version has its own cached folder.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/lib.sh"

KAFKA_VERSION="${KAFKA_VERSION:-4.1.0}"
home="${INFRA_CACHE}/kafka/${KAFKA_VERSION}"

if [ -f "${home}/.complete" ]; then
  echo "${home}"
  exit 0
fi

case "${KAFKA_VERSION}" in
  3.*) logging=reload4j; log_config=log4j.properties ;;   # slf4j → reload4j (log4j 1.x API)
  4.*) logging=log4j2; log_config=log4j2.properties ;;     # slf4j → log4j2 (KIP-653)
  *) log "unsupported KAFKA_VERSION '${KAFKA_VERSION}' (3.x with KRaft, or 4.x)"; exit 1 ;;
esac

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
  # Only the folder may reach stdout: Maven's output goes to stderr, and Maven 3.8's -q prints bare
  # ESC[0m codes even with -B, so escape codes are stripped (pipefail keeps Maven's exit status).
  nice -n 10 mvn -q -B --no-transfer-progress -f "${here}/kafka/pom.xml" \
    -Dkafka.version="${KAFKA_VERSION}" -Dkafka.logging="${logging}" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="${home}.tmp/libs" 2>&1 \
    | sed -u 's/\x1b\[[0-9;]*m//g' >&2
  [ -f "${home}.tmp/libs/kafka_2.13-${KAFKA_VERSION}.jar" ] \
    || { log "maven did not fetch kafka_2.13-${KAFKA_VERSION}.jar"; exit 1; }
  cp "${here}/kafka/${log_config}" "${home}.tmp/${log_config}"
  touch "${home}.tmp/.complete"
  rm -rf "${home}"
  mv "${home}.tmp" "${home}"
  log "kafka ${KAFKA_VERSION} fetched in $(( $(date +%s) - started ))s ($(ls "${home}/libs" | wc -l) jars, $(du -sh "${home}/libs" | cut -f1))"
fi
echo "${home}"
