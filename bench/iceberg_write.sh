#!/usr/bin/env bash
# Iceberg write benchmark: `floe write` of the standard 5,000,000-row JSONL
# file (shared/interop/bench_data.mjs) into a new Iceberg table (hadoop
# catalog, zstd Parquet, one commit) vs DuckDB single-threaded
# `COPY (SELECT * FROM read_json(..., columns={...})) TO '...parquet' (FORMAT parquet)`
# in the same run. Median of REPS runs per side (wall time; DuckDB: the
# statement's own time as duckdb_sql.mjs --timing reports it). Prints rows/s,
# the ratio (target >= 2x) and floe's CPU seconds.
#
#   bench/iceberg_write.sh [BUILD_DIR]      (default: build/release)
#
# Env: FLOE_SHARED, ROWS (default 5000000), REPS (default 3),
# FLOE_BENCH_DIR (default BUILD_DIR/bench_iceberg: data is cached there).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
shared="${FLOE_SHARED:-}"
if [[ -z "$shared" ]]; then
  for c in "$here/../shared" "$here/../../shared" /work/shared; do
    [[ -f "$c/interop/bench_data.mjs" ]] && { shared="$(cd "$c" && pwd)"; break; }
  done
fi
rows="${ROWS:-5000000}"
reps="${REPS:-3}"
dir="${FLOE_BENCH_DIR:-$build/bench_iceberg}"
mkdir -p "$dir"
[[ -x "$build/floe" ]] || { echo "build $build/floe first" >&2; exit 2; }
eval "$(bash "$shared/interop/install.sh" 2>/dev/null)" || true

data="$dir/bench_$rows.jsonl"
[[ -f "$data" ]] || node "$shared/interop/bench_data.mjs" --rows "$rows" --format jsonl "$data"
schema="id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN"
columns="{id: 'BIGINT', user_id: 'BIGINT', amount: 'DOUBLE', qty: 'INTEGER', name: 'VARCHAR', ts: 'TIMESTAMP', flag: 'BOOLEAN'}"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }

floe_times=() floe_cpus=() duck_times=()
for ((r = 0; r < reps; r++)); do
  rm -rf "$dir/warehouse"
  TIMEFORMAT='%R %U %S'
  t=$( { time "$build/floe" write --catalog warehouse="$dir/warehouse" --table bench.events \
          --schema "$schema" --input "$data" >"$dir/floe_out.json"; } 2>&1 )
  floe_times+=("$(awk '{print $1}' <<<"$t")")
  floe_cpus+=("$(awk '{print $2 + $3}' <<<"$t")")
  grep -q "\"rows\":$rows" "$dir/floe_out.json" || { echo "floe wrote: $(cat "$dir/floe_out.json")" >&2; exit 1; }
  rm -f "$dir/duckdb.parquet"
  d=$( { node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing \
        "COPY (SELECT * FROM read_json('$data', format='newline_delimited', columns=$columns)) TO '$dir/duckdb.parquet' (FORMAT parquet)" >/dev/null; } 2>&1 \
        | awk '/s COPY/ {sub("s$","",$1); print $1}')
  duck_times+=("$d")
done
floe_s=$(printf '%s\n' "${floe_times[@]}" | median)
floe_cpu=$(printf '%s\n' "${floe_cpus[@]}" | median)
duck_s=$(printf '%s\n' "${duck_times[@]}" | median)
files=$(grep -o '"files":[0-9]*' "$dir/floe_out.json" | cut -d: -f2)
bytes=$(grep -o '"bytes":[0-9]*' "$dir/floe_out.json" | cut -d: -f2)
awk -v r="$rows" -v f="$floe_s" -v c="$floe_cpu" -v d="$duck_s" -v files="$files" -v bytes="$bytes" \
    -v db="$(stat -c %s "$dir/duckdb.parquet")" 'BEGIN {
  printf "%-34s %12s %14s\n", "", "seconds", "rows/s";
  printf "%-34s %12.2f %14.0f   (cpu %.2fs, %d files, %d bytes)\n", "floe write (iceberg, 1 commit)", f, r / f, c, files, bytes;
  printf "%-34s %12.2f %14.0f   (%d bytes)\n", "duckdb COPY read_json -> parquet", d, r / d, db;
  printf "ratio floe/duckdb rows/s: %.2fx (target >= 2x)\n", d / f;
}'
