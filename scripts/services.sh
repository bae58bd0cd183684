#!/usr/bin/env bash
# Idempotent service setup for tests and the local platform.
# Installs what is missing (Debian packages), starts Postgres and Redis when they are down,
# waits until they answer, and says what it did. Exits non-zero with a clear message otherwise.
set -uo pipefail

say() { printf '[services] %s\n' "$*"; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

APT_UPDATED=0
apt_install() {
  # $@ = Debian package names
  if [ "$(id -u)" != 0 ]; then
    die "missing packages: $* — run as root or install them with: sudo apt-get install -y $*"
  fi
  if [ "$APT_UPDATED" = 0 ]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed"
    APT_UPDATED=1
  fi
  say "installing: $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/tmp/orrery-apt.log 2>&1 \
    || die "apt-get install $* failed (see /tmp/orrery-apt.log)"
}

need=()
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v etcdctl >/dev/null 2>&1 || need+=(etcd-client)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v pg_ctlcluster >/dev/null 2>&1 || need+=(postgresql)
[ -x /usr/sbin/nginx ] || need+=(nginx-light)   # baseline reverse proxy for bench/router
command -v wrk >/dev/null 2>&1 || need+=(wrk)   # bench/statesvc's HTTP load generator (bench/statesvc/wrk-load.ts)
# The Kubernetes test cluster: kube-proxy programs iptables and flushes conntrack entries, pods
# get network namespaces and veths (iproute2), certificates come from openssl.
command -v iptables >/dev/null 2>&1 || need+=(iptables)
command -v conntrack >/dev/null 2>&1 || need+=(conntrack)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# Package builds (docs/packages.md) install requirements.txt with Debian's python3 -m pip.
[ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import pip' >/dev/null 2>&1 && need+=(python3-pip)
command -v lua5.1 >/dev/null 2>&1 || need+=(lua5.1)   # runs docs/argocd/*.lua (Argo CD's Lua 5.1 dialect) in tests
command -v zsh >/dev/null 2>&1 || need+=(zsh)         # the CLI's completion tests drive bash, zsh and fish
command -v fish >/dev/null 2>&1 || need+=(fish)
# NATS JetStream for queue triggers (docs/triggers.md): tests start their own nats-server on a free
# port, and the process kubelet runs it for the official `nats` image. Debian puts it in /usr/sbin.
[ -x /usr/sbin/nats-server ] || command -v nats-server >/dev/null 2>&1 || need+=(nats-server)
if [ ${#need[@]} -gt 0 ]; then apt_install "${need[@]}"; else say "packages present: etcd, chromium, redis-server, postgresql, nginx, wrk, iptables, conntrack, iproute2, openssl, lua5.1, zsh, fish, nats-server"; fi

# --- Postgres -----------------------------------------------------------------------------
pg_ready() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
if pg_ready; then
  say "postgres: already running on 127.0.0.1:5432"
else
  ver=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)
  if [ -z "$ver" ]; then
    ver=$(ls /usr/lib/postgresql | sort -V | tail -1)
    say "postgres: creating cluster $ver/main"
    pg_createcluster "$ver" main >/dev/null || die "pg_createcluster failed"
  fi
  conf="/etc/postgresql/$ver/main"
  # trust auth on loopback, like the machines the project runs on
  if ! grep -q '^host all all 127.0.0.1/32 trust' "$conf/pg_hba.conf" 2>/dev/null; then
    sed -i 's/^\(host\|local\)\(.*\)\(md5\|scram-sha-256\|peer\)$/\1\2trust/' "$conf/pg_hba.conf" 2>/dev/null || true
  fi
  say "postgres: starting $ver/main"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start >/dev/null 2>&1 || true
  for _ in $(seq 1 60); do pg_ready && break; sleep 0.5; done
  pg_ready || die "postgres did not become ready on 127.0.0.1:5432"
  say "postgres: ready"
fi
if ! psql -h 127.0.0.1 -U postgres -tAc "select 1 from pg_database where datname='test'" 2>/dev/null | grep -q 1; then
  psql -h 127.0.0.1 -U postgres -c 'create database test' >/dev/null 2>&1 && say "postgres: created database test" \
    || die "cannot create database 'test' (is trust auth enabled for 127.0.0.1?)"
fi

# --- Redis --------------------------------------------------------------------------------
redis_ready() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
if redis_ready; then
  say "redis: already running on 127.0.0.1:6379"
else
  say "redis: starting on 127.0.0.1:6379"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >/dev/null || die "redis-server failed to start"
  for _ in $(seq 1 40); do redis_ready && break; sleep 0.25; done
  redis_ready || die "redis did not answer PING on 127.0.0.1:6379"
  say "redis: ready"
fi

say "etcd $(etcd --version 2>/dev/null | head -1 | awk '{print $3}') and $(chromium --version 2>/dev/null | head -1) available"

# --- Kubernetes control plane, etcd and helm built from their Go modules ------------------------
# Built once per machine into ~/.cache/orrery (a cold build takes 10-40 minutes; later runs only
# check the checksums). The Kubernetes tests, the registry tests and RegistryClusters use this etcd.
if [ "${ORRERY_SKIP_K8S_TOOLS:-}" = 1 ]; then
  say "ORRERY_SKIP_K8S_TOOLS=1: not building the Kubernetes binaries"
else
  bash "$(dirname "$0")/k8s-tools.sh" || die "building the Kubernetes binaries failed (see above)"
  # kstatus's verdicts (Flux/kpt) for the GitOps status tests; a cold build takes about 2 minutes.
  bash "$(dirname "$0")/kstatus-tool.sh" || die "building tools/kstatus failed (see above)"
  # etcdctl/etcdutl of the cluster's etcd version, for the backup and restore drill (under a minute cold).
  bash "$(dirname "$0")/etcd-client-tools.sh" || die "building etcdctl/etcdutl failed (see above)"
fi
