#!/usr/bin/env bash
# Builds etcdctl and etcdutl (etcd's client and offline tools: `snapshot save`, `snapshot status`,
# `snapshot restore`) at the etcd version the test cluster runs, once per machine, into a cache
# outside the checkout, so CI's fresh clone reuses it:
#   ${ORRERY_CACHE:-$HOME/.cache/orrery}/tools/etcd-client-<version>/{etcdctl,etcdutl}
# The backup/restore drill (packages/chart-tests/src/backup-restore.kube.test.ts) uses them; the
# official etcd image ships both beside etcd, so on a real cluster they run in the member's pod.
#
#   bash scripts/etcd-client-tools.sh         build what is missing, print progress
#   bash scripts/etcd-client-tools.sh --dir   build what is missing (progress on stderr), print the folder
#
# Cold: a few minutes on two cores with the Go module cache of scripts/k8s-tools.sh warm.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/k8s-versions.env
. "$here/k8s-versions.env"

say() { printf '[etcd-client-tools] %s\n' "$*" >&2; }
die() { printf '[etcd-client-tools] ERROR: %s\n' "$*" >&2; exit 1; }
# shellcheck source=scripts/go-build-env.sh
. "$here/go-build-env.sh"

CACHE=${ORRERY_CACHE:-$HOME/.cache/orrery}
DIR=$CACHE/tools/etcd-client-$ETCD_VERSION

built() { [ -x "$DIR/etcdctl" ] && [ -x "$DIR/etcdutl" ]; }

if ! built; then
  go_build_setup "$DIR" mod "etcdctl and etcdutl"
  mkdir -p "$DIR/build"
  if ! built; then
    started=$(date +%s)
    log=$DIR/build.log; : >"$log"
    cd "$DIR/build" || die "cannot enter $DIR/build"
    [ -f go.mod ] || printf 'module orrery.local/etcd-client-build\n\ngo 1.26.0\n' >go.mod
    for tool in etcdctl etcdutl; do
      say "building $tool from go.etcd.io/etcd/$tool/v3@$ETCD_VERSION (log: $log)"
      # Each module's root package is the tool's main.
      { go get "go.etcd.io/etcd/$tool/v3@$ETCD_VERSION" && go build -trimpath -ldflags "-s -w" -o "$DIR/$tool.tmp" "go.etcd.io/etcd/$tool/v3"; } >>"$log" 2>&1 \
        || { tail -20 "$log" >&2; die "building $tool failed (full log: $log)"; }
      mv "$DIR/$tool.tmp" "$DIR/$tool" # atomic: a half-written binary is never taken for a built one
    done
    say "built in $(( $(date +%s) - started ))s: $DIR"
  fi
fi

if [ "${1:-}" = "--dir" ]; then echo "$DIR"; else say "ready: $DIR"; fi
