#!/usr/bin/env bash
# `npm run test:cluster`: the end-to-end suites and the cluster-only scenarios against the chart's release on a local
# Kubernetes cluster (jest project e2e-cluster; docs/kubernetes.md, "The cluster tier"). Brings the cluster up when it
# is not (npm run cluster:up, which builds the images from the tree) and removes it afterwards; a cluster that was
# already up stays up. Prints the scenarios' figures, then one line "cluster tier: N passed, N failed".
#   --results FILE   jest's JSON results (for scripts/test-all.sh's closing line)
#   KEEP_CLUSTER=1   leave a cluster this run started running
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/versions.sh"
source "$here/cluster-env.sh"
cd "$root"
results=""
[ "${1:-}" = "--results" ] && results="$2"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
results="${results:-$out/cluster.json}"

started=0
t0=$SECONDS
if ! cluster_running; then
  if ! bash "$here/up.sh" >"$out/up.out"; then
    echo '{"numPassedTests":0,"numFailedTests":1}' >"$results"
    echo "cluster:up failed (state and logs kept in $STATE)"
    echo "cluster tier: 0 passed, 1 failed"
    exit 1
  fi
  started=1
fi
echo "cluster ready after $((SECONDS - t0)) s ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"

# The suites that run unchanged against the shared release: those whose settings the release runs with
# (libs/testing/src/cluster.ts, CLUSTER_SERVICE_ENV). Left out, and why:
#   admin (its own operator token), jobs-rate-limit (a default of 5 a minute), jobs-target-fallback (a lower output
#   limit), account-limits, webhooks-ergonomics (lower per-account limits), webhooks-ssrf (private networks refused),
#   jobs-image-url (its image servers listen on loopback, out of the pods' reach), observability (a trace file on
#   this machine), dashboard (webhook retries an hour apart), docs (Chromium flags the page's Cross-Origin-Opener-
#   Policy on a plain-http origin other than localhost), crash*, distributed-*, services/standalone (they start and
#   kill their own processes).
suites=(
  services/api/test/jobs-submit services/api/test/jobs-poll services/api/test/jobs-list services/api/test/jobs-result
  services/api/test/jobs-wait services/api/test/jobs-cancel services/api/test/jobs-credits services/api/test/jobs-settlement
  services/api/test/jobs-idempotency services/api/test/jobs-auth services/api/test/jobs-content services/api/test/jobs-sharp
  services/api/test/jobs-openapi services/api/test/openapi-views services/api/test/request-parsing services/api/test/api-keys
  services/api/test/webhooks clients/typescript/test/cli clients/typescript/test/sdk clients/typescript/test/browser
)
export CLUSTER_ENV_FILE="$STATE/cluster.env" CLUSTER_REPORT_FILE="$out/report.jsonl"
: >"$CLUSTER_REPORT_FILE"
status=0
kubectl_() { KUBECONFIG="$STATE/admin.kubeconfig" "$K8S_BIN/kubectl" -n "$NAMESPACE" "$@"; }
# One processor while the suites run: they read every pod's /metrics and would lose counts of a pod the autoscaler
# removes. The scenarios test the autoscaler itself (its bounds come back from the chart's values).
max_processors="$(kubectl_ get hpa "$RELEASE-processor" -o jsonpath='{.spec.maxReplicas}')"
kubectl_ patch hpa "$RELEASE-processor" --type merge -p '{"spec":{"maxReplicas":1}}' >/dev/null
for _ in $(seq 1 150); do
  [ "$(kubectl_ get pods -l app.kubernetes.io/component=processor --no-headers 2>/dev/null | wc -l)" = 1 ] && break
  sleep 2
done
kubectl_ rollout status "deployment/$RELEASE-processor" --timeout=300s >/dev/null
npx jest --selectProjects e2e-cluster --runInBand --runTestsByPath "${suites[@]/%/.e2e-spec.ts}" \
  --json --outputFile="$results" || status=1
# The scenarios change the release (upgrade, scaling, deleted pods): a run of their own, after the suites (jest
# orders the files of one run as it likes). Their results sit beside the suites' (scripts/test-all.sh adds up both).
scenarios="${results%.json}-scenarios.json"
kubectl_ patch hpa "$RELEASE-processor" --type merge -p "{\"spec\":{\"maxReplicas\":$max_processors}}" >/dev/null
npx jest --selectProjects e2e-cluster --runInBand --runTestsByPath services/api/test/cluster-operations.e2e-spec.ts \
  --json --outputFile="$scenarios" || status=1

echo
echo "scenarios:"
sed 's/^/  /' "$CLUSTER_REPORT_FILE"
# Node.js 24 in the images: every service must start without the negative-timeout warning (kafkajs, patched).
warnings=$(for p in $(kubectl_ get pods -o name); do kubectl_ logs "$p" 2>/dev/null; done | grep -c TimeoutNegativeWarning)
echo "TimeoutNegativeWarning lines in the pods' logs: $warnings"
[ "$warnings" = 0 ] || status=1

if [ "$started" = 1 ] && [ "${KEEP_CLUSTER:-}" != 1 ]; then bash "$here/down.sh"; fi
node -e '
const fs = require("fs");
let passed = 0, failed = Number(process.argv[1]);
for (const f of process.argv.slice(2)) {
  try { const r = JSON.parse(fs.readFileSync(f, "utf8")); passed += r.numPassedTests; failed += r.numFailedTests; }
  catch { failed += 1; }
}
console.log(`cluster tier: ${passed} passed, ${failed} failed`);
' "$([ "$warnings" = 0 ] && echo 0 || echo 1)" "$results" "$scenarios"
echo "cluster tier took $((SECONDS - t0)) s"
exit $status
