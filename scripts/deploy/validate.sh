#!/usr/bin/env bash
# Validates every deployment artifact OFFLINE (no cluster, no Docker). Exits non-zero on any problem.
#   1. the Dockerfile (one, build argument SERVICE): hadolint, BuildKit's parser, multi-stage, non-root, and its
#      assemble step run for each SERVICE in a scratch folder (models only where needed)
#   2. Helm: `helm lint --strict` and `helm template` for every charts/upscaler/ci/*.yaml (ci/everything-values.yaml
#      turns every option on), output checked against the Kubernetes JSON schemas (kubernetes-validate --strict),
#      the Prometheus Operator's CRD schemas for its kinds (ServiceMonitor, PrometheusRule; strict too), and the
#      chart's policies; the rendered alerting rules linted by promtool and unit-tested
#      (scripts/deploy/test/alerts.test.yaml)
#   3. the schema refuses a deliberately broken values file (the check can fail)
#   4. kustomize: k8s/base up to date with the chart, base and overlays built and checked the same way
#   5. docker-compose.yml against the compose-spec JSON schema, plus the compose policies
# Tools come from scripts/deploy/install-tools.sh (run it first; it is cached and idempotent).
# KUBE_VERSIONS (default "1.27.0 1.37.0") are the Kubernetes versions the manifests are checked against.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/scripts/deploy"
KUBE_VERSIONS="${KUBE_VERSIONS:-1.27.0 1.37.0}"
# helm built by `go install` defaults to Kubernetes 1.20 (the version is set by its release ldflags):
# render for a version the chart's kubeVersion accepts.
export HELM_KUBE_VERSION="${HELM_KUBE_VERSION:-1.33.0}"

tool_env="$("$here/install-tools.sh")" || { echo "validate: tools are missing (install-tools.sh failed)" >&2; exit 2; }
eval "$tool_env"
export HELM PYTHON
# ci/everything-values.yaml: the render whose rules the alert unit tests run on.
ALERT_TESTS_VALUES="${ALERT_TESTS_VALUES:-everything-values}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

failures=0
passed=0
step() { printf '\n== %s\n' "$*"; }
ok() { passed=$((passed + 1)); printf 'ok   %s\n' "$*"; }
fail() { failures=$((failures + 1)); printf 'FAIL %s\n' "$*"; }
# run DESCRIPTION CMD...: the command's output is shown only when it fails.
run() {
  local what="$1"; shift
  local log="$out/log.$RANDOM"
  if "$@" >"$log" 2>&1; then ok "$what"; else fail "$what"; sed 's/^/     /' "$log"; fi
}
# kube FILE: Kubernetes JSON schemas (strict: unknown fields are errors) for each version, and no kind
# without a schema (kubernetes-validate only warns about those).
kube() {
  local file="$1" v log
  for v in $KUBE_VERSIONS; do
    log="$out/kv.$RANDOM"
    if "$KUBERNETES_VALIDATE" --strict --quiet -k "$v" "$file" >"$log" 2>&1 && ! grep -q "WARN" "$log"; then
      ok "kubernetes $v schemas: ${file#$out/}"
    else
      fail "kubernetes $v schemas: ${file#$out/}"; sed 's/^/     /' "$log"
    fi
  done
}

step "Dockerfile"
run "hadolint Dockerfile" "$HADOLINT" --no-color "$root/Dockerfile"
run "images: one Dockerfile, multi-stage, node LTS slim, non-root, npm ci/build/prune; per SERVICE: models in processor+standalone only" \
  "$PYTHON" "$here/checks/dockerfiles.py" "$root"

step "Helm chart"
chart="$root/charts/upscaler"
for values in "$chart"/ci/*.yaml; do
  name="$(basename "$values" .yaml)"
  run "helm lint --strict -f ci/$name.yaml" "$HELM" lint --strict --kube-version "$HELM_KUBE_VERSION" "$chart" -f "$values"
  if "$HELM" template upscaler "$chart" --kube-version "$HELM_KUBE_VERSION" --namespace upscaler -f "$values" >"$out/helm-$name.yaml" 2>"$out/helm-$name.err"; then
    ok "helm template -f ci/$name.yaml ($(grep -c '^kind:' "$out/helm-$name.yaml") objects: $(grep '^kind:' "$out/helm-$name.yaml" | sort -u | cut -d' ' -f2 | paste -sd, -))"
    # The operator's kinds against its CRDs; everything else (NetworkPolicy and the test Pod included) against
    # the Kubernetes schemas.
    run "custom resources against the Prometheus Operator CRD schemas: ci/$name.yaml ($(grep -cE "^kind: (ServiceMonitor|PrometheusRule)$" "$out/helm-$name.yaml") objects)" \
      "$PYTHON" "$here/checks/crds.py" "$MONITORING_CRDS" "$out/helm-$name.yaml" "$out/helm-$name.core.yaml"
    kube "$out/helm-$name.core.yaml"
    run "chart policies: ci/$name.yaml" "$PYTHON" "$here/checks/manifests.py" "$out/helm-$name.yaml"
    if grep -q '^kind: PrometheusRule' "$out/helm-$name.yaml"; then
      mkdir -p "$out/rules-$name"
      "$PYTHON" "$here/checks/rules.py" "$out/helm-$name.yaml" "$out/rules-$name/rules.yaml"
      run "promtool check rules: ci/$name.yaml ($(grep -c '^ *- alert:' "$out/rules-$name/rules.yaml") alerts)" \
        "$PROMTOOL" check rules "$out/rules-$name/rules.yaml"
      if [ "$name" = "$ALERT_TESTS_VALUES" ]; then
        cp "$here/test/alerts.test.yaml" "$out/rules-$name/"
        run "promtool test rules: scripts/deploy/test/alerts.test.yaml on ci/$name.yaml" \
          "$PROMTOOL" test rules "$out/rules-$name/alerts.test.yaml"
      fi
    fi
  else
    fail "helm template -f ci/$name.yaml"; sed 's/^/     /' "$out/helm-$name.err"
  fi
done

step "The schema check can fail"
broken="$here/test/broken-values.yaml"
if "$HELM" template upscaler "$chart" --kube-version "$HELM_KUBE_VERSION" -f "$broken" >"$out/broken.out" 2>&1; then
  fail "helm template accepted the deliberately broken $broken"
elif grep -q "values don't meet the specifications of the schema" "$out/broken.out"; then
  ok "helm template refuses scripts/deploy/test/broken-values.yaml: $(grep -c -- '- at\|^- ' "$out/broken.out") schema errors"
else
  fail "helm template failed on the broken values, but not by the schema"; sed 's/^/     /' "$out/broken.out"
fi

step "Kustomize"
run "k8s/base is the chart's current render (scripts/deploy/render-k8s-base.sh --check)" "$here/render-k8s-base.sh" --check
for dir in "$root/k8s/base" "$root"/k8s/overlays/*/; do
  dir="${dir%/}"; rel="${dir#$root/}"; flat="${rel//\//-}"
  if "$KUSTOMIZE" build "$dir" >"$out/kustomize-$flat.yaml" 2>"$out/kustomize-$flat.err"; then
    ok "kustomize build $rel ($(grep -c '^kind:' "$out/kustomize-$flat.yaml") objects)"
    kube "$out/kustomize-$flat.yaml"
    run "policies: $rel" "$PYTHON" "$here/checks/manifests.py" "$out/kustomize-$flat.yaml"
  else
    fail "kustomize build $rel"; sed 's/^/     /' "$out/kustomize-$flat.err"
  fi
done

step "Docker Compose"
run "docker-compose.yml against the compose-spec schema and the compose policies" \
  "$PYTHON" "$here/checks/compose.py" "$COMPOSE_SCHEMA" "$root/docker-compose.yml"

printf '\nvalidate: %d passed, %d failed\n' "$passed" "$failures"
[ "$failures" -eq 0 ]
