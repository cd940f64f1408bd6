#!/usr/bin/env bash
# The change sink's key index (issue 24, section 2), one core (taskset -c 0):
#   ROWS keyed rows (default 10,000,000) written by a plain `floe write`, then a
#   merge-on-read `floe write` of one change to that table: the sink indexes
#   every key of the table (projected reads of the key column) before it
#   applies the change. Prints the index's keys, bytes per key and build time
#   (the accounting line's index_* fields), the whole run's wall time and peak
#   RSS, and, as the anchor, DuckDB summing the same key column from the
#   table's Parquet files (the I/O and decoding floor of the build).
#   bench/key_index.sh
#   ROWS=1000000 bench/key_index.sh
# Needs a release build (build/release/floe) and the interop oracles (DuckDB).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${FLOE_SHARED:-$(cd "$root/../shared" && pwd)}
build=${FLOE_BUILD:-$root/build/release}
rows=${ROWS:-10000000}
work="$build/bench/key_index"
mkdir -p "$work"
eval "$(bash "$shared/interop/install.sh")"
export ICEBERG_INTEROP_NODE_MODULES
floe="$build/floe"
wh="$work/wh"
rm -rf "$wh"

data="$work/rows_$rows.jsonl"
if [ ! -s "$data" ]; then
  awk -v n="$rows" 'BEGIN { for (i = 0; i < n; i++) printf "{\"id\":%d,\"name\":\"n%d\",\"seq\":1}\n", i, i }' \
    >"$data.tmp"
  mv "$data.tmp" "$data"
fi
taskset -c 0 "$floe" write --no-progress --catalog "warehouse=$wh" --table b.t -i "$data" \
  --schema "id BIGINT, name STRING, seq BIGINT" >/dev/null
echo '{"id":7,"name":"changed","op":"UPDATE_AFTER","seq":2}' >"$work/change.jsonl"

/usr/bin/time -f "%e %M" -o "$work/time.txt" taskset -c 0 "$floe" write --no-progress --catalog "warehouse=$wh" \
  --table b.t -i "$work/change.jsonl" --schema "id BIGINT, name STRING, op STRING, seq BIGINT" \
  --set mode=merge-on-read --set change_type_column=op --set sequence_number_column=seq \
  --set equality_columns=id --set keep=id,name,seq >"$work/out.txt"
read -r wall rss <"$work/time.txt"
line=$(grep '"destinations"' "$work/out.txt" | tail -1)
keys=$(echo "$line" | sed -E 's/.*"index_keys":([0-9]+).*/\1/')
bytes=$(echo "$line" | sed -E 's/.*"index_bytes":([0-9]+).*/\1/')
build_ms=$(echo "$line" | sed -E 's/.*"index_build_ms":([0-9]+).*/\1/')
files=$(ls "$wh"/b/t/data/*.parquet | grep -v deletes | head -1000 | paste -sd, -)
duck_start=$(date +%s.%N)
taskset -c 0 node "$shared/interop/duckdb_sql.mjs" \
  "SELECT sum(id), count(*) FROM read_parquet([$(echo "$files" | sed -E "s/([^,]+)/'\1'/g")])" >/dev/null
duck_end=$(date +%s.%N)
awk -v rows="$rows" -v keys="$keys" -v bytes="$bytes" -v ms="$build_ms" -v wall="$wall" -v rss="$rss" \
  -v d0="$duck_start" -v d1="$duck_end" 'BEGIN {
  printf "key index: %d rows, %d keys indexed, %.1f bytes/key (%.0f MB), build %.2f s, start to done %.2f s, peak RSS %.0f MB\n",
    rows, keys, bytes / keys, bytes / 1e6, ms / 1000, wall, rss / 1024
  printf "anchor: DuckDB sum(id) over the same files %.2f s (node start included); build / DuckDB = %.2f\n",
    d1 - d0, (ms / 1000) / (d1 - d0)
}'
# The change was applied: one row of id 7, by position.
taskset -c 0 "$floe" scan --catalog "warehouse=$wh" --table b.t --where "id = 7"

# Catching up: a streaming merge-on-read sink (standard input, a commit a
# second) applies a change, another writer then commits UPDATES updates of
# keys spread over the table, and the streaming sink's next change finds the
# table moved: it reads only the files that changed (the other writer's new
# file and the files its deletes touched) instead of every key again.
updates=${UPDATES:-5000}
awk -v n="$updates" -v rows="$rows" 'BEGIN { srand(7); for (i = 0; i < n; i++)
  printf "{\"id\":%d,\"name\":\"other\",\"op\":\"UPDATE_AFTER\",\"seq\":3}\n", int(rand() * rows) }' >"$work/other.jsonl"
mor=(--schema "id BIGINT, name STRING, op STRING, seq BIGINT" --set mode=merge-on-read --set change_type_column=op
  --set sequence_number_column=seq --set equality_columns=id --set keep=id,name,seq)
rm -f "$work/in"
mkfifo "$work/in"
taskset -c 0 "$floe" write --no-progress --catalog "warehouse=$wh" --table b.t -i - "${mor[@]}" \
  --set sink_id=live --set triggering_frequency_seconds=1 <"$work/in" >"$work/live.txt" &
live=$!
exec 3>"$work/in"
echo '{"id":8,"name":"live 1","op":"UPDATE_AFTER","seq":4}' >&3
for _ in $(seq 1 600); do grep -q '"commits":1' "$work/live.txt" 2>/dev/null && break; sleep 0.1; done
taskset -c 0 "$floe" write --no-progress --catalog "warehouse=$wh" --table b.t -i "$work/other.jsonl" "${mor[@]}" \
  --set sink_id=other >/dev/null
echo '{"id":9,"name":"live 2","op":"UPDATE_AFTER","seq":5}' >&3
for _ in $(seq 1 600); do grep -q '"index_catch_ups"' "$work/live.txt" 2>/dev/null && break; sleep 0.1; done
exec 3>&-
wait "$live"
rm -f "$work/in"
line=$(grep '"index_catch_ups"' "$work/live.txt" | tail -1)
catch_ms=$(echo "$line" | sed -E 's/.*"index_catch_up_ms":([0-9]+).*/\1/')
builds=$(echo "$line" | sed -E 's/.*"index_builds":([0-9]+).*/\1/')
awk -v ms="$catch_ms" -v full="$build_ms" -v n="$updates" -v builds="$builds" 'BEGIN {
  printf "catch-up after another writer committed %d updates: %.3f s (full build %.2f s: %.0fx less); index builds in the streaming sink: %d\n",
    n, ms / 1000, full / 1000, (ms > 0 ? full / ms : 0), builds
}'
