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
npm run -s build:apps > .apps-build.log 2>&1 || { tail -30 .apps-build.log; echo "app bundles (npm run build:apps) failed"; echo "0 passed, 1 failed"; exit 1; }

mkdir -p .test-results
rm -f .test-results/*.json .test-results/one-at-a-time.log
# Two vitest runs side by side. The Kubernetes tests (one control plane) and the browser specs (one
# platform) take turns within their projects, and vitest runs such files only after every other
# file has finished; most of their time is spent waiting on the cluster and the browser, so they
# run beside the rest instead of after it. Their output is shown once the main run is done.
report() { echo "--reporter=default --reporter=json --outputFile.json=.test-results/$1.json"; }
# shellcheck disable=SC2046
ORRERY_TEST_GROUP=one-at-a-time npx vitest run --passWithNoTests $(report one-at-a-time) "$@" > .test-results/one-at-a-time.log 2>&1 &
serial=$!
# shellcheck disable=SC2046
ORRERY_TEST_GROUP=parallel npx vitest run --passWithNoTests $(report parallel) "$@"
code=$?
wait "$serial"
serial_code=$?
echo
echo "[test] the Kubernetes tests and browser specs (run alongside; .test-results/one-at-a-time.log):"
cat .test-results/one-at-a-time.log
node scripts/test-summary.mjs .test-results/parallel.json .test-results/one-at-a-time.json
summary=$?
[ $code -eq 0 ] && [ $serial_code -eq 0 ] && [ $summary -eq 0 ] && exit 0
exit 1
