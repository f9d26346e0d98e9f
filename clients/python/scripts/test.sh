#!/usr/bin/env bash
# The Python SDK's tests: a venv in clients/python/.venv (made once; pip's cache makes later installs
# fast), the package installed editable with its dev extras, then pytest against a real standalone
# (tests/conftest.py starts dist/services/standalone/src/main.js: run `npm run build` first).
#
#   bash clients/python/scripts/test.sh [--results FILE] [pytest args...]
#
# --results FILE writes {"numPassedTests": n, "numFailedTests": m} there (scripts/test-all.sh sums
# those files into its closing line). Exit status: pytest's (non-zero when anything failed).
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"

results=""
if [ "${1:-}" = "--results" ]; then results=$2; shift 2; fi

write_results() { # passed failed
  [ -n "$results" ] && printf '{"numPassedTests": %d, "numFailedTests": %d}\n' "$1" "$2" >"$results"
  return 0
}

python=${PYTHON:-python3.11}
if ! command -v "$python" >/dev/null; then
  # any python3 of 3.11 or later will do (pyproject.toml: requires-python >= 3.11)
  if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then python=python3; else
    echo "python sdk: python3.11 (or a python3 >= 3.11) is required" >&2; write_results 0 1; exit 1
  fi
fi
make_venv() { rm -rf .venv && "$python" -m venv .venv; }
if [ ! -x .venv/bin/python ]; then
  # Debian's own python3 makes venvs only with its python3-venv package
  make_venv || { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null \
    && apt-get install -y -qq python3-venv >/dev/null && make_venv; } \
    || { echo "python sdk: venv creation failed" >&2; write_results 0 1; exit 1; }
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]' \
  || { echo "python sdk: pip install failed" >&2; write_results 0 1; exit 1; }

junit=$(mktemp --suffix=.xml)
start=$(date +%s)
.venv/bin/python -m pytest --junitxml="$junit" "$@"
rc=$?
counts=$(.venv/bin/python - "$junit" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print(0, 1)  # pytest stopped before writing its report: count the run as one failure
    raise SystemExit
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
total = sum(int(s.get(k, 0)) for s in suites for k in ("tests",))
failed = sum(int(s.get(k, 0)) for s in suites for k in ("failures", "errors"))
skipped = sum(int(s.get("skipped", 0)) for s in suites)
print(total - failed - skipped, failed)
PY
)
rm -f "$junit"
read -r passed failed <<<"$counts"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi  # e.g. pytest exit 5 (no tests) or a crash
write_results "$passed" "$failed"
echo "python sdk: $passed passed, $failed failed in $(( $(date +%s) - start )) s"
exit "$rc"
