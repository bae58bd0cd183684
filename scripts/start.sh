#!/usr/bin/env bash
# `npm start`: install what is missing, then run the whole platform in the foreground with
# `orrery up` (Ctrl-C stops everything). Extra arguments go to `orrery up`, e.g.
#   npm start -- --state-driver postgres --port-base 9080
# Optional parts (etcd for the registry, Redis for shared router tables, NATS for queue triggers) are installed when
# running as root on Debian/Ubuntu; otherwise the platform starts without them and shows
# them as Degraded.
set -uo pipefail
cd "$(dirname "$0")/.."

say() { printf '[start] %s\n' "$*"; }

if ! command -v node >/dev/null 2>&1; then
  say "Node.js 20.19 or newer is required: https://nodejs.org/ (or: apt-get install nodejs)"; exit 1
fi
# shellcheck source=scripts/npm-deps.sh
. scripts/npm-deps.sh
ensure_npm_deps '[start]' || { say "npm install failed"; exit 1; }

missing=()
command -v etcd >/dev/null 2>&1 || [ -x /usr/bin/etcd ] || missing+=(etcd-server)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${missing[*]} (apt-get)"
    if DEBIAN_FRONTEND=noninteractive apt-get update -qq >/tmp/orrery-apt.log 2>&1 \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >>/tmp/orrery-apt.log 2>&1; then
      say "installed ${missing[*]}"
    else
      say "could not install ${missing[*]} (see /tmp/orrery-apt.log); starting without them"
    fi
  else
    say "not installed: ${missing[*]}. Orrery starts without them and shows them as Degraded:"
    for p in "${missing[@]}"; do
      case $p in
        etcd-server) say "  etcd-server  → the service registry (3 etcd members) is off; routers use the operator's endpoints file" ;;
        redis-server) say "  redis-server → the two routers keep separate quarantine/sticky tables" ;;
        nats-server) say "  nats-server  → queue triggers have no broker (their status says NoBroker)" ;;
      esac
    done
    say "to get them: sudo apt-get install -y ${missing[*]}  (then run npm start again)"
  fi
fi

# The apps start from their compiled bundles when these are fresh (scripts/app-launch.mjs): a
# quicker start and less memory than compiling TypeScript in every process. ~15 s, only when stale.
if ! node scripts/app-bundles-fresh.mjs; then
  say "compiling the apps (npm run build:apps)"
  node scripts/build-apps.mjs >/tmp/orrery-build-apps.log 2>&1 || say "could not compile the apps (see /tmp/orrery-build-apps.log); they start from source"
fi

exec node apps/cli/bin/orrery.mjs up "$@"
