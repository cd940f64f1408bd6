#!/usr/bin/env bash
# The PostgreSQL source's initial snapshot (src/floe/pgsrc/pg_source.h) against
# PostgreSQL's own export speed, in the same run: `pgbench -i -s SCALE`
# (default 10: 1 M accounts; the issue's figure is SCALE=100), then
#   anchor: psql -c "\copy pgbench_accounts to /dev/null"
#   floe:   floe write --config (source: pgbench_accounts) until its first
#           commit (the snapshot, committed whole) is printed
# each client pinned to core 0 (`taskset -c 0`; the server's backends are not
# pinned). Like with like: floe reads on CONNECTIONS connections (default 2:
# that many server backends, and that many decoding threads plus the writing
# thread in floe, all on core 0), so the anchor is measured twice: one
# `\copy` (1 backend, 1 client process), and CONNECTIONS `\copy`s of key
# ranges at once (CONNECTIONS backends, CONNECTIONS client processes on
# core 0). ROUNDS rounds (default 5) alternate the three; prints the medians
# (seconds, rows/s) and the ratios floe / anchor (target <= 1.3).
# A throwaway cluster (wal_level=logical), stopped on exit.
#   bench/pg_snapshot.sh
#   SCALE=100 CONNECTIONS=4 bench/pg_snapshot.sh
#   ROUNDS=1 FLOE_WRAP="valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p" bench/pg_snapshot.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FLOE_BUILD:-$root/build/release}
scale=${SCALE:-10}
conns=${CONNECTIONS:-2}
rounds=${ROUNDS:-5}
floe="$build/floe"
[ -x "$floe" ] || { echo "bench: $floe missing (cmake --build --preset release --target floe)" >&2; exit 1; }
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ] || { echo "bench: PostgreSQL is not installed" >&2; exit 1; }
work="$build/bench/pg_snapshot"
rm -rf "$work"
mkdir -p "$work"
pg_dir=$(mktemp -d /tmp/floe_bench_pg_XXXXXX)
as=()
if [ "$(id -u)" -eq 0 ]; then chown postgres: "$pg_dir"; as=(runuser -u postgres --); fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${as[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
"${as[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w start \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $pg_dir -c wal_level=logical -c max_replication_slots=4 -c max_wal_senders=4" >/dev/null
floe_pid=""
cleanup() {
  if [ -n "$floe_pid" ]; then kill "$floe_pid" 2>/dev/null || true; wait "$floe_pid" 2>/dev/null || true; fi
  "${as[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast -w stop >/dev/null || true
  rm -rf "$pg_dir"
}
trap cleanup EXIT

"$pg_bin/pgbench" -i -q -s "$scale" -h 127.0.0.1 -p "$port" -U postgres postgres >/dev/null 2>&1
rows=$("$pg_bin/psql" -X -A -t -h 127.0.0.1 -p "$port" -U postgres -c "SELECT count(*) FROM pgbench_accounts" postgres)
now() { date +%s.%N; }

# Anchor: PostgreSQL's own export to nowhere.
copy() { taskset -c 0 "$pg_bin/psql" -X -h 127.0.0.1 -p "$port" -U postgres -c "\\copy pgbench_accounts to /dev/null" postgres >/dev/null; }
# The same on $conns connections at once: key ranges of aid (1 .. rows).
copy_range() {
  taskset -c 0 "$pg_bin/psql" -X -h 127.0.0.1 -p "$port" -U postgres \
    -c "\\copy (SELECT * FROM pgbench_accounts WHERE aid > $1 AND aid <= $2) to /dev/null" postgres >/dev/null
}
copy_par() {
  local pids=() i
  for ((i = 0; i < conns; i++)); do
    copy_range $((rows * i / conns)) $((rows * (i + 1) / conns)) &
    pids+=($!)
  done
  wait "${pids[@]}"
}
psql_c() { "$pg_bin/psql" -X -A -t -h 127.0.0.1 -p "$port" -U postgres -c "$1" postgres; }

# floe: the snapshot of the same table into a fresh warehouse with a fresh
# slot, until its commit line.
cat >"$work/pg.yaml" <<YAML
table: bench.pgbench_accounts
triggering_frequency_seconds: 1
catalog_properties:
  warehouse: $work/warehouse
source:
  type: postgres
  connection: postgresql://postgres@127.0.0.1:$port/postgres
  tables: [pgbench_accounts]
  slot: bench_slot
  snapshot_connections: $conns
YAML
snapshot() {
  rm -rf "$work/warehouse" "$work/floe.out"
  while [ "$(psql_c "SELECT count(*) FROM pg_replication_slots WHERE active")" != 0 ]; do sleep 0.05; done
  psql_c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots" >/dev/null
  local t0 t1
  t0=$(now)
  taskset -c 0 ${FLOE_WRAP:-} "$floe" write --config "$work/pg.yaml" --no-progress >"$work/floe.out" 2>"$work/floe.err" &
  floe_pid=$!
  while [ ! -s "$work/floe.out" ]; do
    kill -0 "$floe_pid" 2>/dev/null || { echo "bench: floe exited: $(cat "$work/floe.err")" >&2; exit 1; }
    sleep 0.01
  done
  t1=$(now)
  kill "$floe_pid"; wait "$floe_pid" || true; floe_pid=""
  echo "$t1 - $t0" | bc -l
}
timed() { local t0 t1; t0=$(now); "$@"; t1=$(now); echo "$t1 - $t0" | bc -l; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

copy  # warms the cache
a1=(); ap=(); fl=()
for ((r = 0; r < rounds; r++)); do  # alternating, so that the machine's moods fall on every side
  a1+=("$(timed copy)")
  ap+=("$(timed copy_par)")
  fl+=("$(snapshot)")
done
anchor=$(median "${a1[@]}"); anchor_par=$(median "${ap[@]}"); floe_s=$(median "${fl[@]}")

printf 'pgbench_accounts rows %d (scale %d), medians of %d rounds\n' "$rows" "$scale" "$rounds"
printf 'anchor psql \\copy to /dev/null, 1 connection   %.3f s  %.0f rows/s\n' "$anchor" "$(echo "$rows / $anchor" | bc -l)"
printf 'anchor psql \\copy to /dev/null, %d connections  %.3f s  %.0f rows/s\n' "$conns" "$anchor_par" "$(echo "$rows / $anchor_par" | bc -l)"
printf 'floe snapshot, %d connections (commit included)  %.3f s  %.0f rows/s\n' "$conns" "$floe_s" "$(echo "$rows / $floe_s" | bc -l)"
printf 'ratio floe / anchor (1 connection) %.2f; floe / anchor (%d connections) %.2f (target <= 1.3)\n' \
  "$(echo "$floe_s / $anchor" | bc -l)" "$conns" "$(echo "$floe_s / $anchor_par" | bc -l)"
