#!/usr/bin/env bash
# The PostgreSQL source's streaming (src/floe/pgsrc/pg_source.h) under
# pgbench, PostgreSQL's own load generator: `pgbench -i -s SCALE` (default
# 10), floe replicating its four tables (pgbench_history given a key), then
# for each rate of RATES (transactions per second; 0 = as fast as pgbench
# goes) a `pgbench -c 4 -R RATE -T SECONDS` run (default 30 s) while the
# replication lag is sampled every 0.2 s: pg_stat_replication.flush_lag of
# floe's walsender (the time from a WAL record's write to floe's confirmed
# flush position passing it; floe confirms only after its Iceberg commits,
# so this is the end-to-end lag, triggering_frequency_seconds included).
# Prints per rate the TPS pgbench reached, lag p50 / p99 / max, and whether
# floe kept up (p99 <= 2 s, and caught up within 10 s of the run's end).
# floe and pgbench pinned to core 0 (`taskset -c 0`); the server is not.
#   bench/pg_stream.sh
#   RATES="200 500 1000 0" SECONDS_PER_RATE=60 bench/pg_stream.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FLOE_BUILD:-$root/build/release}
scale=${SCALE:-10}
rates=${RATES:-"100 300 0"}
secs=${SECONDS_PER_RATE:-30}
trigger=${TRIGGER:-1}
floe="$build/floe"
[ -x "$floe" ] || { echo "bench: $floe missing (cmake --build --preset release --target floe)" >&2; exit 1; }
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ] || { echo "bench: PostgreSQL is not installed" >&2; exit 1; }
work="$build/bench/pg_stream"
rm -rf "$work"
mkdir -p "$work"
pg_dir=$(mktemp -d /tmp/floe_bench_pgs_XXXXXX)
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
psql_() { "$pg_bin/psql" -X -A -t -h 127.0.0.1 -p "$port" -U postgres -c "$1" postgres; }

"$pg_bin/pgbench" -i -q -s "$scale" -h 127.0.0.1 -p "$port" -U postgres postgres >/dev/null 2>&1
psql_ "ALTER TABLE pgbench_history ADD COLUMN hid bigserial PRIMARY KEY" >/dev/null

cat >"$work/pg.yaml" <<YAML
triggering_frequency_seconds: $trigger
catalog_properties:
  warehouse: $work/warehouse
source:
  type: postgres
  connection: postgresql://postgres@127.0.0.1:$port/postgres
  tables: [pgbench_accounts, pgbench_tellers, pgbench_branches, pgbench_history]
  slot: bench_slot
  namespace: bench
YAML
taskset -c 0 "$floe" write --config "$work/pg.yaml" --no-progress >"$work/floe.out" 2>"$work/floe.err" &
floe_pid=$!
# The snapshot committed and the slot streaming.
until [ "$(psql_ "SELECT count(*) FROM pg_stat_replication WHERE application_name = 'floe'")" = 1 ] && [ -s "$work/floe.out" ]; do
  kill -0 "$floe_pid" 2>/dev/null || { echo "bench: floe exited: $(cat "$work/floe.err")" >&2; exit 1; }
  sleep 0.2
done

printf 'scale %d, pgbench -c 4, %d s per rate, triggering_frequency_seconds %d\n' "$scale" "$secs" "$trigger"
for rate in $rates; do
  rflag=()
  [ "$rate" != 0 ] && rflag=(-R "$rate")
  : >"$work/lag.txt"
  taskset -c 0 "$pg_bin/pgbench" -n -c 4 -j 1 "${rflag[@]}" -T "$secs" -h 127.0.0.1 -p "$port" -U postgres postgres \
    >"$work/pgbench.out" 2>&1 &
  load=$!
  while kill -0 "$load" 2>/dev/null; do
    psql_ "SELECT COALESCE(extract(epoch FROM flush_lag), 0) FROM pg_stat_replication WHERE application_name = 'floe'" \
      >>"$work/lag.txt" || true
    sleep 0.2
  done
  wait "$load"
  tps=$(grep -o 'tps = [0-9.]*' "$work/pgbench.out" | head -1 | cut -d' ' -f3)
  # Caught up: the confirmed flush position passes the WAL position of the run's end.
  end_lsn=$(psql_ "SELECT pg_current_wal_lsn()")
  caught=no
  for _ in $(seq 1 50); do
    [ "$(psql_ "SELECT confirmed_flush_lsn >= '$end_lsn' FROM pg_replication_slots WHERE slot_name = 'bench_slot'")" = t ] && { caught=yes; break; }
    sleep 0.2
  done
  read -r p50 p99 max < <(sort -g "$work/lag.txt" | awk '{v[NR]=$1} END {if (NR == 0) {print "nan nan nan"; exit}
    i50 = int(NR * 0.50); if (i50 < 1) i50 = 1; i99 = int(NR * 0.99); if (i99 < 1) i99 = 1;
    print v[i50], v[i99], v[NR]}')
  kept=$(awk -v p="$p99" -v c="$caught" 'BEGIN {print (p <= 2 && c == "yes") ? "kept up" : "fell behind"}')
  printf 'rate %-6s pgbench %8.1f tps  lag p50 %.2f s  p99 %.2f s  max %.2f s  caught up in 10 s: %s  -> %s\n' \
    "$([ "$rate" = 0 ] && echo max || echo "$rate")" "$tps" "$p50" "$p99" "$max" "$caught" "$kept"
done
