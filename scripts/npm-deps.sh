# Sourced by scripts/start.sh and scripts/test.sh (one rule for both):
# (re)install the npm dependencies when node_modules is missing or package-lock.json is newer
# than the last install (node_modules/.package-lock.json, which npm writes on every install).

npm_deps_stale() {
  [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]
}

# ensure_npm_deps PREFIX — says why it installs; returns non-zero when npm install fails.
ensure_npm_deps() {
  npm_deps_stale || return 0
  local why='first run'
  [ -d node_modules ] && why='package-lock.json is newer than node_modules'
  printf '%s installing npm dependencies (%s)\n' "$1" "$why"
  npm install --no-audit --no-fund || return 1
  # npm leaves the file alone when nothing changed: mark this lock file as installed anyway.
  [ -e node_modules/.package-lock.json ] && touch node_modules/.package-lock.json
  return 0
}
