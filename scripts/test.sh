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
# A migrated embedded database to copy from (packages/db/src/pglite-template.ts), made once here
# rather than by the first dozen test files at the same time.
npx tsx packages/db/scripts/warm-pglite-template.ts || echo "[test] no PGlite template: every embedded database migrates from scratch"

mkdir -p .test-results
rm -f .test-results/*.json .test-results/*.log
# Three vitest runs. The Kubernetes tests (one control plane: files take turns, most of their time
# waiting on the cluster) run beside the others from the start. Every other workspace file runs in
# the parallel run, ORRERY_TEST_WORKERS files at a time (default 2: on two cores most of those
# files wait on the processes they start); then the platform run (the browser specs' one platform
# and two slow `orrery up` tests, taking turns), so that Chromium and `orrery up` do not load the
# machine while the chart tests install. Measured on a clean clone: parallel ~20 min, platform
# ~8 min, Kubernetes ~29 min (docs/development.md).
report() { echo "--reporter=default --reporter=json --outputFile.json=.test-results/$1.json"; }
# shellcheck disable=SC2046
ORRERY_TEST_GROUP=kubernetes npx vitest run --passWithNoTests --maxWorkers=1 $(report kubernetes) "$@" > .test-results/kubernetes.log 2>&1 &
kube=$!
# shellcheck disable=SC2046
ORRERY_TEST_GROUP=parallel npx vitest run --passWithNoTests --maxWorkers="${ORRERY_TEST_WORKERS:-2}" $(report parallel) "$@"
code=$?
echo
echo "[test] the platform tests and browser specs (.test-results/platform.log):"
# shellcheck disable=SC2046
ORRERY_TEST_GROUP=platform npx vitest run --passWithNoTests --maxWorkers=1 $(report platform) "$@" > .test-results/platform.log 2>&1
platform_code=$?
cat .test-results/platform.log
wait "$kube"
kube_code=$?
echo
echo "[test] the Kubernetes tests (run alongside; .test-results/kubernetes.log):"
cat .test-results/kubernetes.log
node scripts/test-summary.mjs .test-results/parallel.json .test-results/platform.json .test-results/kubernetes.json
summary=$?
[ $code -eq 0 ] && [ $platform_code -eq 0 ] && [ $kube_code -eq 0 ] && [ $summary -eq 0 ] && exit 0
exit 1
