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
#   rest_over_X              floe's REST client and `floe serve` over catalog X on
#                            loopback (hadoop, sqlite, postgres), each against its own
#                            table: what the REST hop adds is the p50 difference to X
# Prints `catalog p50_ms p99_ms max_ms commits first100_p50_ms last100_p50_ms`
# lines, then the targets (hadoop and SQLite: p50 <= 20 ms, p99 <= 100 ms; REST
# over loopback adds <= 5 ms at p50).
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
  args+=(--catalog postgres catalog-type=sql "uri=jdbc:postgresql://127.0.0.1:$port/postgres" jdbc.user=postgres
         "warehouse=$work/postgres")
else
  echo "bench: PostgreSQL not installed, skipping the postgres catalog" >&2
fi

# floe serve over each catalog above (its own warehouse folder, so the REST
# run's table is separate), stopped on exit.
serve_pids=()
cleanup() {
  for p in "${serve_pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if [ -n "$pg_stop" ]; then eval "$pg_stop"; fi
}
trap cleanup EXIT
serve() {  # NAME CATALOG-OPTIONS...
  local name=$1; shift
  local opts=()
  for o in "$@"; do opts+=(--catalog "$o"); done
  "$build/floe" serve --listen 127.0.0.1:0 "${opts[@]}" >"$work/$name.serve.out" 2>&1 &
  serve_pids+=($!)
  local url=""
  for _ in $(seq 400); do
    url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/$name.serve.out" 2>/dev/null | head -1 || true)
    [ -n "$url" ] && break
    sleep 0.025
  done
  [ -n "$url" ] || { echo "bench: floe serve for $name did not start: $(cat "$work/$name.serve.out")" >&2; exit 1; }
  args+=(--catalog "rest_over_$name" catalog-type=rest "uri=$url")
}
serve hadoop "warehouse=$work/rest_hadoop"
serve sqlite catalog-type=sql "uri=jdbc:sqlite:file:$work/rest_new.db" "warehouse=$work/rest_sqlite"
if [ -n "$pg_stop" ]; then
  serve postgres catalog-type=sql "uri=jdbc:postgresql://127.0.0.1:$port/postgres" jdbc.user=postgres \
    "warehouse=$work/rest_postgres"
fi

echo "catalog commit latency: $commits appends of one data file each, one process, $(nproc) cores, $(df -T "$work" | awk 'NR==2 {print $2}') under $work"
"$bin" --commits "$commits" "${args[@]}" | tee "$work/result.txt" | column -t
awk 'NR > 1 && ($1 == "hadoop" || $1 ~ /^sqlite/) {
  ok = ($2 <= 20 && $3 <= 100) ? "met" : "MISSED"
  printf "  target p50 <= 20 ms, p99 <= 100 ms: %-24s %s\n", $1, ok
}' "$work/result.txt"
awk 'NR > 1 { p50[$1] = $2 }
  END { for (c in p50) if (c ~ /^rest_over_/) { b = substr(c, 11); if (b in p50) {
    d = p50[c] - p50[b]; printf "  REST over loopback adds %.1f ms at p50 to %s (target <= 5 ms): %s\n", d, b, (d <= 5 ? "met" : "MISSED") } } }' "$work/result.txt"
