#!/bin/sh
# The process kubelet's stand-in for the official redis image's docker-entrypoint.sh: options or
# a config file alone mean redis-server; as root it runs redis-server as the redis user.
set -e

case "${1:-}" in -*|*.conf) set -- redis-server "$@" ;; esac

if [ "${1:-}" = redis-server ] && [ "$(id -u)" = 0 ] && id redis >/dev/null 2>&1; then
  find . \! -user redis -exec chown redis '{}' + 2>/dev/null || :
  exec setpriv --reuid=redis --regid=redis --init-groups -- "$0" "$@"
fi

umask 0077
exec "$@"
