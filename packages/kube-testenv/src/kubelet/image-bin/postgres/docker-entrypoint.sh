#!/bin/sh
# The process kubelet's stand-in for the official postgres image's docker-entrypoint.sh (it runs
# Debian's postgres for postgres images): when PGDATA is empty, initdb with POSTGRES_USER,
# POSTGRES_PASSWORD and POSTGRES_DB, listen on every address with password logins from other
# hosts, run /docker-entrypoint-initdb.d; then exec postgres. postgres refuses root, so as root
# this prepares the folders and runs itself again as the postgres user (as the image does).
set -eu

case "${1:-}" in -*) set -- postgres "$@" ;; esac
[ "${1:-}" = postgres ] || exec "$@"

: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
  chown postgres:postgres /var/run/postgresql
  chmod 700 "$PGDATA"
  chmod 3777 /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups -- "$0" "$@"
fi

mkdir -p "$PGDATA"
chmod 700 "$PGDATA" 2>/dev/null || :

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  auth="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    echo 'Error: Database is uninitialized and superuser password is not specified.' >&2
    echo '       Set POSTGRES_PASSWORD to a non-empty value (or POSTGRES_HOST_AUTH_METHOD=trust).' >&2
    exit 1
  fi
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    # shellcheck disable=SC2086
    initdb --username="$user" --pwfile="$pwfile" ${POSTGRES_INITDB_ARGS:-}
    rm -f "$pwfile"
  else
    # shellcheck disable=SC2086
    initdb --username="$user" ${POSTGRES_INITDB_ARGS:-}
  fi
  printf "\nlisten_addresses = '*'\n" >> "$PGDATA/postgresql.conf"
  printf '\nhost all all all %s\n' "$auth" >> "$PGDATA/pg_hba.conf"

  # A server on the unix socket only, for CREATE DATABASE and the init scripts.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  export PGUSER="$user" PGPASSWORD="${POSTGRES_PASSWORD:-}"
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --no-password --dbname postgres -c "CREATE DATABASE \"$db\""
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; . "$f" ;;
      *.sql) echo "running $f"; psql -v ON_ERROR_STOP=1 --no-password --dbname "$db" -f "$f" ;;
      *) ;;
    esac
  done
  unset PGPASSWORD PGUSER
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
