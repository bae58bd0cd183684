#!/usr/bin/env bash
# `npm test`: install what is missing, start the services the tests need, run every test,
# and finish with one line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/npm-deps.sh
. scripts/npm-deps.sh
ensure_npm_deps '[test]' || { echo "npm install failed"; echo "0 passed, 1 failed"; exit 1; }
bash scripts/services.sh || { echo "0 passed, 1 failed"; exit 1; }
# One etcd for every test: the one built beside the Kubernetes control plane (the chart's etcd).
ORRERY_K8S_BIN_DIR=$(bash scripts/k8s-tools.sh --bin-dir) || { echo "the Kubernetes binaries are missing"; echo "0 passed, 1 failed"; exit 1; }
export ORRERY_K8S_BIN_DIR ETCD_BIN="$ORRERY_K8S_BIN_DIR/etcd"

# The console is served by the platform tests and the browser specs: build it once, up front.
echo "[test] building the console (next build)"
NEXT_TELEMETRY_DISABLED=1 npm run build -w @orrery/console > .console-build.log 2>&1 || { tail -30 .console-build.log; echo "console build failed"; echo "0 passed, 1 failed"; exit 1; }

mkdir -p .test-results
rm -f .test-results/vitest.json
npx vitest run --reporter=default --reporter=json --outputFile.json=.test-results/vitest.json "$@"
code=$?
node scripts/test-summary.mjs .test-results/vitest.json
summary=$?
[ $code -eq 0 ] && [ $summary -eq 0 ] && exit 0
exit 1
