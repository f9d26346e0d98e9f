#!/usr/bin/env bash
# The README's test command (`npm test`): builds, then runs every tier — unit, integration (real
# Postgres, Kafka, MinIO started from packages by the tests), end-to-end (real HTTP against started
# services) — and the offline deployment validation. Prints one closing line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export ONNXRUNTIME_NODE_INSTALL=skip
results=$(mktemp -d)
status=0

step() { printf '\n=== %s ===\n' "$*"; }

step "infrastructure (installed once, cached under ~/.cache/upscaler and ~/go)"
# Kafka: the default is the version docker-compose.yml ships (4.1.0); the messaging integration tests
# also run against the newest 4.2.x (KAFKA_NEXT_VERSION), see docs/distributed.md.
KAFKA_NEXT_VERSION="${KAFKA_NEXT_VERSION:-4.2.2}"
bash scripts/infra/install-kafka.sh >/dev/null || { echo "Kafka install failed"; exit 1; }
KAFKA_VERSION="$KAFKA_NEXT_VERSION" bash scripts/infra/install-kafka.sh >/dev/null || { echo "Kafka $KAFKA_NEXT_VERSION install failed"; exit 1; }
bash scripts/infra/install-minio.sh >/dev/null || { echo "MinIO install failed"; exit 1; }
bash scripts/deploy/install-tools.sh >/dev/null || { echo "deployment tools install failed"; exit 1; }

step "build, type check, lint, format"
npm run -s build || { echo "build failed"; exit 1; }
npm run -s typecheck || { echo "type check failed"; status=1; }
npx eslint . --max-warnings 0 || { echo "lint failed"; status=1; }
npx prettier --check . --log-level warn || { echo "format check failed (npm run format)"; status=1; }
# The converted UpscalerJS networks (tests and benchmarks only, not installed): made on demand, cached. jest's
# integration and e2e projects do it too (globalSetup); here a failure stops the run with its own message.
node scripts/convert-models.js || { echo "model conversion failed"; exit 1; }

run_tier() {
  local name=$1; shift
  step "$name"
  npx jest --selectProjects "$name" --passWithNoTests --json --outputFile="$results/$name.json" "$@" || status=1
}

run_tier unit
run_tier integration --runInBand
# The Kafka transport and relay tests again, against the newest Kafka 4.2.x broker.
step "integration (libs/messaging, Kafka $KAFKA_NEXT_VERSION)"
KAFKA_VERSION="$KAFKA_NEXT_VERSION" npx jest --selectProjects integration --runInBand libs/messaging \
  --json --outputFile="$results/integration-kafka-$KAFKA_NEXT_VERSION.json" || status=1
run_tier e2e --runInBand
# The Python SDK (clients/python) with pytest against a real standalone; its venv
# is clients/python/.venv, and its passed/failed counts join the closing line.
step "python sdk"
bash clients/python/scripts/test.sh --results "$results/python-sdk.json" -q || status=1
# The same end-to-end suites, unchanged, against a distributed deployment (api, billing,
# webhooks and two processors as separate processes on Kafka, MinIO and Postgres): jest.config.js's
# e2e-distributed project, which leaves out the files that test the standalone process itself or
# start deployments of their own.
if [ "${SKIP_DISTRIBUTED_E2E:-}" != "1" ]; then
  step "e2e (distributed)"
  npx jest --selectProjects e2e-distributed --runInBand --passWithNoTests \
    --json --outputFile="$results/e2e-distributed.json" || status=1
fi

# (the offline deployment validation runs inside the integration tier: libs/testing/test/deploy.int-spec.ts)

# The cluster tier (docs/kubernetes.md): the chart on a local single-node Kubernetes, when its tools are cached on
# this machine (a first `npm run test:cluster` or `npm run cluster:up` builds them, ~30 min cold) and we are root.
source scripts/cluster/versions.sh
if [ "${SKIP_CLUSTER:-}" = "1" ]; then
  cluster_line="cluster tier: not run (SKIP_CLUSTER=1)"
elif [ "$(id -u)" = 0 ] && [ -f "$K8S_BIN/.complete" ] && [ -x "$K8S_BIN/metrics-server-$METRICS_SERVER_VERSION" ] \
    && [ -x "$CLUSTER_CACHE/helm-$HELM_VERSION/helm" ]; then
  step "cluster tier (Kubernetes $K8S_VERSION, cached under $CLUSTER_CACHE)"
  bash scripts/cluster/test.sh --results "$results/cluster.json" | tee "$results/cluster.out" || status=1
  cluster_line="$(grep '^cluster tier: ' "$results/cluster.out" | tail -1 | sed 's/^cluster tier: /cluster tier: ran, /')"
else
  cluster_line="cluster tier: not run (no cached Kubernetes $K8S_VERSION build under $CLUSTER_CACHE, or not root; npm run test:cluster builds it)"
fi
echo
echo "$cluster_line"
rm -f "$results/cluster.out"

node -e '
const fs = require("fs"); const dir = process.argv[1];
let p = 0, f = 0;
for (const file of fs.readdirSync(dir)) {
  try { const r = JSON.parse(fs.readFileSync(dir + "/" + file, "utf8")); p += r.numPassedTests || 0; f += r.numFailedTests || 0; }
  catch { f += 1; }
}
console.log(`\n${p} passed, ${f} failed`);
' "$results"
exit $status
