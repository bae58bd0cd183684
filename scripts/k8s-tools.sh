#!/usr/bin/env bash
# Builds the real Kubernetes control plane (kube-apiserver, kube-controller-manager,
# kube-scheduler, kube-proxy), an etcd server and helm from their Go modules, once per machine,
# into a cache outside the checkout (CI's fresh clone reuses it):
#   ${ORRERY_CACHE:-$HOME/.cache/orrery}/tools/k8s-<v>_etcd-<v>_helm-<v>/bin
# Versions are pinned in scripts/k8s-versions.env. A binary whose checksum does not match the
# stamp written after its build (a half-built cache) is built again.
#
#   bash scripts/k8s-tools.sh            build what is missing, print progress
#   bash scripts/k8s-tools.sh --bin-dir  print the bin directory only (exit 1 if incomplete)
#
# A cold build takes 20-40 minutes on two cores (see docs/development.md); a warm check < 1 s.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/k8s-versions.env
. "$here/k8s-versions.env"

say() { printf '[k8s-tools] %s\n' "$*"; }
die() { printf '[k8s-tools] ERROR: %s\n' "$*" >&2; exit 1; }

CACHE=${ORRERY_CACHE:-$HOME/.cache/orrery}
TOOLS=$CACHE/tools/k8s-${KUBERNETES_VERSION}_etcd-${ETCD_VERSION}_helm-${HELM_VERSION}
BIN=$TOOLS/bin
STAMP=$BIN/SHA256SUMS
BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kube-proxy etcd helm)

complete() {
  [ -f "$STAMP" ] || return 1
  for b in "${BINARIES[@]}"; do grep -q "  $b\$" "$STAMP" || return 1; done
  (cd "$BIN" && sha256sum --quiet -c SHA256SUMS >/dev/null 2>&1)
}

if [ "${1:-}" = "--bin-dir" ]; then
  complete || exit 1
  echo "$BIN"; exit 0
fi

command -v go >/dev/null 2>&1 || die "Go is not installed (Go 1.26 is needed to build the Kubernetes binaries)"
mkdir -p "$BIN" "$TOOLS/build" "$CACHE/go"
export GOMODCACHE=$CACHE/go/mod GOCACHE=$CACHE/go/build GOPATH=$CACHE/go/path
export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=mod" CGO_ENABLED=0
export GOPROXY=${GOPROXY:-https://proxy.golang.org}

# One builder at a time per machine (npm test and npm start may both ask).
exec 9>"$TOOLS/.lock"
if ! flock -n 9; then
  say "another build is running; waiting for it"
  flock 9
fi

if complete; then say "ready: $BIN"; exit 0; fi

started=$(date +%s)
ticker_pid=
start_ticker() { # $1 = what is being built
  ( while sleep 30; do say "  … still building $1 ($(( $(date +%s) - started ))s so far)"; done ) &
  ticker_pid=$!
}
stop_ticker() { [ -n "$ticker_pid" ] && kill "$ticker_pid" 2>/dev/null; wait "$ticker_pid" 2>/dev/null; ticker_pid=; }
trap 'stop_ticker' EXIT

# run_go LOG ARGS… — runs go, and on failure names the module the proxy refused.
run_go() {
  local log=$1; shift
  if ! go "$@" >>"$log" 2>&1; then
    stop_ticker
    local refused
    refused=$(grep -Eo '(module [^ :]+[^:]*: [^ ]+ [^ ]+|reading https://[^ ]+: [0-9]{3}[^"]*|[a-z0-9./-]+@v[^ :]+: [^"]+)' "$log" | sort -u | head -5)
    tail -20 "$log" >&2
    [ -n "$refused" ] && printf '[k8s-tools] the Go module proxy refused or failed:\n%s\n' "$refused" >&2
    die "go $* failed (full log: $log)"
  fi
}

stamp() { # $1 = a built binary: replace its line in the checksum file
  (cd "$BIN" && { grep -v "  $1\$" SHA256SUMS 2>/dev/null; sha256sum "$1"; } >SHA256SUMS.tmp && mv SHA256SUMS.tmp SHA256SUMS)
}

# have NAME — built, and its checksum matches the one recorded after its build
have() { [ -x "$BIN/$1" ] && (cd "$BIN" && grep "  $1\$" SHA256SUMS 2>/dev/null | sha256sum --quiet -c - >/dev/null 2>&1); }

# --- Kubernetes ---------------------------------------------------------------------------
kube_bins=(kube-apiserver kube-controller-manager kube-scheduler kube-proxy)
need_kube=()
for b in "${kube_bins[@]}"; do have "$b" || need_kube+=("$b"); done
if [ ${#need_kube[@]} -gt 0 ]; then
  dir=$TOOLS/build/kubernetes; log=$TOOLS/build/kubernetes.log
  mkdir -p "$dir"; : >"$log"
  say "building ${need_kube[*]} from k8s.io/kubernetes@$KUBERNETES_VERSION (cold: 20-40 min on 2 cores; log: $log)"
  (
    cd "$dir" || exit 1
    if [ ! -f go.mod ]; then
      printf 'module orrery.local/kube-build\n\ngo 1.26.0\n\ngodebug default=go1.26\n' >go.mod
    fi
  )
  cd "$dir" || die "cannot enter $dir"
  # k8s.io/kubernetes lists its staging modules at v0.0.0 and replaces them with local folders;
  # a module that depends on it replaces each with the published v0.<minor>.<patch> instead.
  staging=$(curl -fsS "${GOPROXY%%,*}/k8s.io/kubernetes/@v/$KUBERNETES_VERSION.mod" 2>/dev/null \
    | awk '/^replace \(/{r=1;next} r&&/^\)/{r=0} r&&/=> \.\/staging/{print $1}')
  [ -n "$staging" ] || staging=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" 2>/dev/null \
    | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p' | xargs -r awk '/^replace \(/{r=1;next} r&&/^\)/{r=0} r&&/=> \.\/staging/{print $1}')
  [ -n "$staging" ] || die "could not read the staging module list of k8s.io/kubernetes@$KUBERNETES_VERSION from the Go module proxy"
  edits=(-require="k8s.io/kubernetes@$KUBERNETES_VERSION")
  for m in $staging; do edits+=(-replace="$m=$m@$KUBERNETES_STAGING_VERSION"); done
  go mod edit "${edits[@]}" || die "go mod edit failed"
  start_ticker "k8s.io/kubernetes modules"
  pkgs=(); for b in "${need_kube[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  run_go "$log" get "${pkgs[@]}"
  stop_ticker
  minor=${KUBERNETES_VERSION#v1.}; minor=${minor%%.*}
  ld="-s -w -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$KUBERNETES_VERSION -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
  for b in "${need_kube[@]}"; do
    say "go build $b"
    start_ticker "$b"
    run_go "$log" build -trimpath -ldflags "$ld" -o "$BIN/$b" "k8s.io/kubernetes/cmd/$b"
    stop_ticker
    stamp "$b"
    say "built $b ($(( $(date +%s) - started ))s so far)"
  done
fi

# build_from_module NAME MODULE@VERSION PACKAGE LDFLAGS — `go get` the module in a build folder of
# its own, then `go build` PACKAGE into $BIN/NAME and stamp it.
build_from_module() {
  local name=$1 module=$2 package=$3 ldflags=$4
  dir=$TOOLS/build/$name; log=$TOOLS/build/$name.log
  mkdir -p "$dir"; : >"$log"; cd "$dir" || die "cannot enter $dir"
  [ -f go.mod ] || printf 'module orrery.local/%s-build\n\ngo 1.26.0\n' "$name" >go.mod
  say "building $name from $module (log: $log)"
  start_ticker "$name"
  run_go "$log" get "$module"
  run_go "$log" build -trimpath -ldflags "$ldflags" -o "$BIN/$name" "$package"
  stop_ticker
  stamp "$name"
  say "built $name ($(( $(date +%s) - started ))s so far)"
}

# --- etcd ----------------------------------------------------------------------------------
# The server module's root package is etcd's main; its default binary name would be 'server'.
have etcd || build_from_module etcd "go.etcd.io/etcd/server/v3@$ETCD_VERSION" go.etcd.io/etcd/server/v3 "-s -w"

# --- helm ----------------------------------------------------------------------------------
have helm || build_from_module helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" helm.sh/helm/v3/cmd/helm "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"

complete || die "the cache at $BIN is incomplete after building (checksums do not match $STAMP)"
# Versions the binaries report, so a wrong stamp shows up here and not in a test. (Captured
# first: grep -q would close the pipe early and pipefail would count the writer's SIGPIPE.)
v=$("$BIN/kube-apiserver" --version 2>&1); [[ $v == *"$KUBERNETES_VERSION"* ]] || die "kube-apiserver reports '$v', not $KUBERNETES_VERSION"
v=$("$BIN/etcd" --version 2>&1); [[ $v == *"${ETCD_VERSION#v}"* ]] || die "etcd reports '${v%%$'\n'*}', not $ETCD_VERSION"
v=$("$BIN/helm" version --short 2>&1); [[ $v == *"$HELM_VERSION"* ]] || die "helm reports '$v', not $HELM_VERSION"
say "ready in $(( $(date +%s) - started ))s: $BIN"
