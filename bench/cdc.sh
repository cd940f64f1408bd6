#!/usr/bin/env bash
# CDC benchmark (issue 8), one thread on each side, measured in the same run:
#   10,000,000 changes over 1,000,000 keys (30% inserts, 60% updates, 10%
#   deletes; bench/cdc_data.mjs) from JSONL into a table partitioned by
#   bucket(id, 16), committed:
#   1. floe merge-on-read (upsert, equality deletes): changes/s and peak RSS;
#   2. floe append of the same file (every change a row): rows/s and peak RSS;
#   3. DuckDB computing the latest row per key into Parquet:
#      row_number() over (partition by id order by seq desc), deletes dropped.
# Prints rates and the ratio floe / DuckDB (> 1 = floe faster), and checks that
# floe's table and DuckDB's Parquet hold the same number of rows.
#   bench/cdc.sh                               # 10,000,000 changes
#   CHANGES=1000000 KEYS=100000 bench/cdc.sh   # smaller
#   SORTER_MB=100 DUCK_MEMORY_MB=256 bench/cdc.sh  # both sides in about the same memory
# Needs a release build (build/release/floe, or FLOE_BUILD) and the interop oracles.
# CDC_WORK_DIR (default BUILD/bench/cdc) holds the generated changes and the tables.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${FLOE_SHARED:-$(cd "$root/../shared" && pwd)}
build=${FLOE_BUILD:-$root/build/release}
changes=${CHANGES:-10000000}
keys=${KEYS:-1000000}
# The sink's buffer (Beam's sorter_memory_mb, default 100): the 1,000,000 keys'
# states take ~300 MB, so the default spills; SORTER_MB=100 measures that.
sorter_mb=${SORTER_MB:-512}
work="${CDC_WORK_DIR:-$build/bench/cdc}"
mkdir -p "$work"
eval "$(bash "$shared/interop/install.sh")"
export ICEBERG_INTEROP_NODE_MODULES

data="$work/changes_${changes}_${keys}.jsonl"
if [ ! -s "$data" ]; then
  echo "bench: generating $data" >&2
  node "$root/bench/cdc_data.mjs" --changes "$changes" --keys "$keys" --out "$data.tmp"
  mv "$data.tmp" "$data"
fi
cat "$data" >/dev/null  # warm the page cache for every side

schema="id BIGINT, region STRING, name STRING, amount DOUBLE, op STRING, seq BIGINT"
floe=("taskset" "-c" "0" "$build/floe")
# "<wall seconds> <user+sys seconds> <peak RSS KB>" of a command.
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" ||
    { cat "$work/err.txt" >&2; return 1; }
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time.txt"
}
rate() { awk -v n="$changes" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }

rm -rf "$work/wh"
read -r mor_wall mor_cpu mor_rss < <(measure "${floe[@]}" write --no-progress --catalog "warehouse=$work/wh" \
  --table b.cdc -i "$data" --schema "$schema" --set mode=merge-on-read --set upsert=true \
  --set change_type_column=op --set sequence_number_column=seq --set equality_columns=id \
  --set "partition_fields=bucket(id, 16)" --set write-parallelism=1 --set "sorter_memory_mb=$sorter_mb")
cp "$work/out.txt" "$work/mor.json"
floe_rows=$("$build/floe" scan --catalog "warehouse=$work/wh" --table b.cdc | wc -l)
read -r app_wall app_cpu app_rss < <(measure "${floe[@]}" write --catalog "warehouse=$work/wh" \
  --table b.app -i "$data" --schema "$schema" --set "partition_fields=bucket(id, 16)" --set write-parallelism=1)
columns="{id: 'BIGINT', region: 'VARCHAR', name: 'VARCHAR', amount: 'DOUBLE', op: 'VARCHAR', seq: 'BIGINT'}"
# DUCK_MEMORY_MB: DuckDB's memory_limit (default: DuckDB's own, 80 % of RAM), e.g.
# floe's peak RSS, to compare at equal memory (DuckDB spills past its limit too).
duck_limit=""
[ -n "${DUCK_MEMORY_MB:-}" ] && duck_limit="SET memory_limit='${DUCK_MEMORY_MB}MB'; "
sql="${duck_limit}COPY (SELECT id, region, name, amount FROM (SELECT *, row_number() OVER (PARTITION BY id ORDER BY seq DESC) AS rn
  FROM read_json('$data', format='newline_delimited', columns=$columns)) WHERE rn = 1 AND op <> 'DELETE')
  TO '$work/duck.parquet' (FORMAT parquet, COMPRESSION zstd)"
read -r duck_wall duck_cpu duck_rss < <(measure taskset -c 0 node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing "$sql")
duck_stmt=$(tail -1 "$work/err.txt" | awk '{sub("s$","",$1); print $1}')
duck_rows=$(node "$shared/interop/duckdb_sql.mjs" "SELECT count(*) AS n FROM '$work/duck.parquet'" | sed 's/[^0-9]//g')

echo "cdc: $changes changes over $keys keys, one core each (taskset -c 0), sorter_memory_mb=$sorter_mb${DUCK_MEMORY_MB:+, DuckDB memory_limit=${DUCK_MEMORY_MB}MB}"
spilled=$(sed -n 's/.*"spilled_runs":\([0-9]*\).*/\1/p' "$work/mor.json")
printf "  floe merge-on-read : %6.2f s wall, %6.2f s cpu, %9s changes/s per core, peak RSS %d MB, %s rows, %s runs spilled\n" \
  "$mor_wall" "$mor_cpu" "$(rate "$mor_cpu")" "$((mor_rss / 1024))" "$floe_rows" "$spilled"
printf "  floe append        : %6.2f s wall, %6.2f s cpu, %9s rows/s per core,    peak RSS %d MB\n" \
  "$app_wall" "$app_cpu" "$(rate "$app_cpu")" "$((app_rss / 1024))"
printf "  duckdb latest row  : %6.2f s statement (%6.2f s process cpu), %9s changes/s, peak RSS %d MB, %s rows\n" \
  "$duck_stmt" "$duck_cpu" "$(rate "$duck_stmt")" "$((duck_rss / 1024))" "$duck_rows"
printf "  ratio merge-on-read / duckdb (wall, statement): %.2f\n" "$(awk -v a="$mor_wall" -v b="$duck_stmt" 'BEGIN { print b / a }')"
if [ "$floe_rows" != "$duck_rows" ]; then
  echo "cdc: floe's table has $floe_rows rows, DuckDB's latest rows $duck_rows" >&2
  exit 1
fi
