#!/usr/bin/env bash
# A throwaway PostgreSQL for Hearth's tests, on 127.0.0.1 in a temp dir.
#
#   scripts/postgres-test.sh install       apt-get postgresql-15 (+ -server-dev) and
#                                          build pgvector 0.8.6 from ../shared/third_party
#   scripts/postgres-test.sh start DIR     initdb in DIR (new or empty), start on a free
#                                          port, create a database; prints its URL
#   scripts/postgres-test.sh stop DIR      stop the server in DIR and remove DIR
#   scripts/postgres-test.sh run CMD...    start in a temp dir, run CMD with
#                                          HEARTH_TEST_POSTGRES_URL set, stop
#
# e.g. scripts/postgres-test.sh run go test ./store/pgstore/
# As root the server runs as the postgres user (PostgreSQL refuses root).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# ../shared sits beside the clone (CI); HEARTH_SHARED points elsewhere.
pgvector_src="${HEARTH_SHARED:-$here/../../shared}/third_party/pgvector-0.8.6"

log() { echo "postgres-test: $*" >&2; }

# as_root runs a command as root: directly, else through sudo.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

bindir() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$d" ] && command -v pg_config >/dev/null; then d=$(pg_config --bindir); fi
  if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
    log "no initdb found: run '$0 install' or set PG_BIN"
    exit 1
  fi
  echo "$d"
}

# as_owner runs a command as the user that owns the cluster.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install() {
  local start=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get -o DPkg::Lock::Timeout=600 update -qq
  as_root apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends postgresql-15 postgresql-server-dev-15 make gcc >/dev/null
  if [ ! -d "$pgvector_src" ]; then
    log "no pgvector source at $pgvector_src: the tests will run without the vector extension"
  else
    local build
    build=$(mktemp -d)
    cp -r "$pgvector_src/." "$build"
    # OPTFLAGS="" leaves out -march=native: the build may run elsewhere.
    # with_llvm=no skips the JIT bitcode, half the build time.
    local mk=(-s -C "$build" OPTFLAGS="" with_llvm=no PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config)
    make -j"$(nproc)" "${mk[@]}" >/dev/null
    as_root make "${mk[@]}" install >/dev/null
    rm -rf "$build"
  fi
  log "installed in $((SECONDS - start)) s"
}

# port_free reports whether nothing listens on 127.0.0.1:$1.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local dir=$1 bin port url
  bin=$(bindir)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  # A throwaway cluster: durability off, room for parallel test pools.
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 20000))
    port_free "$port" || continue
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -s \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start; then
      url="postgres://postgres@127.0.0.1:$port/hearth_test?sslmode=disable"
      as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres hearth_test
      if as_owner "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d hearth_test -c 'CREATE EXTENSION IF NOT EXISTS vector' 2>/dev/null; then
        log "pgvector $(as_owner "$bin/psql" -tA -h 127.0.0.1 -p "$port" -U postgres -d hearth_test -c "SELECT extversion FROM pg_extension WHERE extname = 'vector'") present"
      else
        log "pgvector is not installed: tests run without it"
      fi
      echo "$url" >"$dir/url"
      echo "$url"
      return
    fi
  done
  cat "$dir/server.log" >&2
  log "could not start PostgreSQL"
  exit 1
}

stop() {
  local dir=$1 bin
  bin=$(bindir)
  if [ -d "$dir/data" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -s stop || true
  fi
  rm -rf "$dir"
}

cmd=${1:-}
shift || true
case "$cmd" in
install) install ;;
start) [ $# = 1 ] || { log "usage: $0 start DIR"; exit 2; }; start "$1" ;;
stop) [ $# = 1 ] || { log "usage: $0 stop DIR"; exit 2; }; stop "$1" ;;
run)
  [ $# -ge 1 ] || { log "usage: $0 run CMD..."; exit 2; }
  dir=$(mktemp -d)
  trap 'stop "$dir"' EXIT
  HEARTH_TEST_POSTGRES_URL=$(start "$dir")
  export HEARTH_TEST_POSTGRES_URL
  log "HEARTH_TEST_POSTGRES_URL=$HEARTH_TEST_POSTGRES_URL"
  "$@"
  ;;
*)
  log "usage: $0 install | start DIR | stop DIR | run CMD..."
  exit 2
  ;;
esac
