#!/usr/bin/env bash
# Builds tools/kstatus (kstatus's verdict — Current / InProgress / Failed — for Kubernetes objects
# read as JSON on stdin; what Flux and kpt decide with) once per machine into a cache outside the
# checkout, keyed by the tool's sources, so CI's fresh clone reuses it:
#   ${ORRERY_CACHE:-$HOME/.cache/orrery}/tools/kstatus-<sources hash>/kstatus
#
#   bash scripts/kstatus-tool.sh         build when missing, print progress
#   bash scripts/kstatus-tool.sh --bin   build when missing (progress on stderr), print the binary's path
#
# Cold: about 2 minutes on two cores with the Go module cache warm (k8s.io/api dominates);
# warm: a hash and a file test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../tools/kstatus" && pwd)

say() { printf '[kstatus-tool] %s\n' "$*" >&2; }
die() { printf '[kstatus-tool] ERROR: %s\n' "$*" >&2; exit 1; }
# shellcheck source=scripts/go-build-env.sh
. "$here/go-build-env.sh"

CACHE=${ORRERY_CACHE:-$HOME/.cache/orrery}
hash=$(cd "$src" && cat go.mod go.sum ./*.go | sha256sum | cut -c1-16)
DIR=$CACHE/tools/kstatus-$hash
BIN=$DIR/kstatus

if [ ! -x "$BIN" ]; then
  go_build_setup "$DIR" readonly tools/kstatus
  if [ ! -x "$BIN" ]; then
    started=$(date +%s)
    say "building tools/kstatus into $DIR (cold: about 2 min)"
    log=$DIR/build.log
    (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$BIN.tmp" .) >"$log" 2>&1 \
      || { tail -20 "$log" >&2; die "go build failed (full log: $log)"; }
    mv "$BIN.tmp" "$BIN"   # atomic: a half-written binary is never taken for a built one
    say "built in $(( $(date +%s) - started ))s: $BIN"
  fi
fi

if [ "${1:-}" = "--bin" ]; then echo "$BIN"; else say "ready: $BIN"; fi
