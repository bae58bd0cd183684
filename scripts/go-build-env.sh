# Sourced by the scripts that build Go tools into the cache outside the checkout
# (etcd-client-tools.sh, kstatus-tool.sh): the Go they build with (the shared module and build
# caches under $CACHE/go, no toolchain download, no cgo) and the lock that lets one builder at a
# time fill a cache folder. Needs CACHE and a `die` function.
#
#   go_build_setup DIR MOD_MODE WHAT   (MOD_MODE: go's -mod= value; WHAT: named if Go is missing)
go_build_setup() {
  local dir=$1 mod_mode=$2 what=$3
  command -v go >/dev/null 2>&1 || die "Go is not installed (Go 1.26 builds $what)"
  mkdir -p "$dir" "$CACHE/go"
  export GOMODCACHE=$CACHE/go/mod GOCACHE=$CACHE/go/build GOPATH=$CACHE/go/path
  export GOTOOLCHAIN=local GOFLAGS="-buildvcs=false -mod=$mod_mode" CGO_ENABLED=0
  export GOPROXY=${GOPROXY:-https://proxy.golang.org}
  # One builder at a time (parallel test workers may all ask); held until the script exits.
  exec 9>"$dir/.lock"
  flock 9
}
