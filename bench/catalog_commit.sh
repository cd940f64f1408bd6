#!/usr/bin/env bash
# Commit latency per catalog: COMMITS appends (default 500) of one tiny data
# file each through the table layer, one process, a new table per catalog
# (src/floe/table/catalog_commit_benchmark.cc; the data file is written before
# the clock starts, process start is not measured). Catalogs:
#   hadoop                   --catalog warehouse=DIR
#   sqlite                   a catalog file floe creates (WAL mode)
#   sqlite_rollback_journal  a catalog file created beforehand in SQLite's
#                            default rollback-journal mode (as Java/PyIceberg make it)
#   postgres                 a throwaway local cluster (default settings, fsync on),
#                            when PostgreSQL is installed
# Prints `catalog p50_ms p99_ms max_ms commits first100_p50_ms last100_p50_ms`
# lines, then the targets (hadoop and SQLite: p50 <= 20 ms, p99 <= 100 ms).
# Files live under the build folder (a real disk: fsync costs what it costs).
#   bench/catalog_commit.sh
#   COMMITS=100 bench/catalog_commit.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FLOE_BUILD:-$root/build/release}
commits=${COMMITS:-500}
bin="$build/catalog_commit_benchmark"
[ -x "$bin" ] || { echo "bench: $bin missing (cmake --build --preset release --target catalog_commit_benchmark)" >&2; exit 1; }
work="$build/bench/catalog_commit"
rm -rf "$work"
mkdir -p "$work"

args=(--catalog hadoop "warehouse=$work/hadoop")
args+=(--catalog sqlite catalog-type=sql "uri=jdbc:sqlite:file:$work/new.db" "warehouse=$work/sqlite")
sqlite3 "$work/old.db" 'PRAGMA journal_mode=DELETE; CREATE TABLE created_elsewhere(x)' >/dev/null
args+=(--catalog sqlite_rollback_journal catalog-type=sql "uri=jdbc:sqlite:file:$work/old.db"
       "warehouse=$work/sqlite_rollback")

# PostgreSQL: a cluster of our own, stopped on exit (as root it runs as the postgres user).
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
pg_stop=""
if [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ]; then
  pg_dir=$(mktemp -d /tmp/floe_bench_pg_XXXXXX)
  as=()
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$pg_dir"; as=(runuser -u postgres --); fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "${as[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  "${as[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w start \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $pg_dir" >/dev/null
  pg_stop="${as[*]} $pg_bin/pg_ctl -D $pg_dir/data -m fast -w stop >/dev/null; rm -rf $pg_dir"
  trap 'eval "$pg_stop"' EXIT
  args+=(--catalog postgres catalog-type=sql "uri=jdbc:postgresql://127.0.0.1:$port/postgres" jdbc.user=postgres
         "warehouse=$work/postgres")
else
  echo "bench: PostgreSQL not installed, skipping the postgres catalog" >&2
fi

echo "catalog commit latency: $commits appends of one data file each, one process, $(nproc) cores, $(df -T "$work" | awk 'NR==2 {print $2}') under $work"
"$bin" --commits "$commits" "${args[@]}" | tee "$work/result.txt" | column -t
awk 'NR > 1 && ($1 == "hadoop" || $1 ~ /^sqlite/) {
  ok = ($2 <= 20 && $3 <= 100) ? "met" : "MISSED"
  printf "  target p50 <= 20 ms, p99 <= 100 ms: %-24s %s\n", $1, ok
}' "$work/result.txt"
