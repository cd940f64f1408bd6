#!/usr/bin/env bash
# Scan benchmark (issue 28's table): a full `floe scan` of an Iceberg table of
# the standard JSONL rows (shared/interop/bench_data.mjs: 7 columns of
# longs, a double, an int, a string, a timestamp, a boolean; zstd Parquet
# written by floe) to JSON lines and to CSV, against DuckDB single-threaded
# `COPY (SELECT * FROM read_parquet(<the same data files>)) TO ... (FORMAT json | csv)`,
# each side pinned to one core (taskset -c 0, floe --threads 1). Both write
# their output to a file in the bench folder. Median of REPS runs per side
# (wall time; DuckDB: the statement's own time as duckdb_sql.mjs --timing
# reports it). Prints rows/s and the ratio floe/DuckDB (target >= 1.5x).
#
#   bench/scan.sh [BUILD_DIR]      (default: build/release)
#
# Env: FLOE_SHARED, ROWS (default 1000000), REPS (default 5),
# FLOE_BENCH_DIR (default BUILD_DIR/bench_scan: data and table are cached there).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
shared="${FLOE_SHARED:-}"
if [[ -z "$shared" ]]; then
  for c in "$here/../shared" "$here/../../shared" /work/shared; do
    [[ -f "$c/interop/bench_data.mjs" ]] && { shared="$(cd "$c" && pwd)"; break; }
  done
fi
rows="${ROWS:-1000000}"
reps="${REPS:-5}"
dir="${FLOE_BENCH_DIR:-$build/bench_scan}"
mkdir -p "$dir"
[[ -x "$build/floe" ]] || { echo "build $build/floe first" >&2; exit 2; }
eval "$(bash "$shared/interop/install.sh" 2>/dev/null)" || true

data="$dir/bench_$rows.jsonl"
[[ -f "$data" ]] || node "$shared/interop/bench_data.mjs" --rows "$rows" --format jsonl "$data"
schema="id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN"
wh="$dir/warehouse_$rows"
if [[ ! -d "$wh/bench/events" ]]; then
  "$build/floe" write --catalog warehouse="$wh" --table bench.events --schema "$schema" --input "$data" >/dev/null
fi
files="$wh/bench/events/data/*.parquet"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A floe_t duck_t
for fmt in jsonl csv; do
  duck_fmt=$([[ $fmt == jsonl ]] && echo json || echo csv)
  ft=() dt=()
  for ((r = 0; r < reps; r++)); do
    TIMEFORMAT='%R'
    t=$( { time taskset -c 0 "$build/floe" scan --catalog warehouse="$wh" --table bench.events --threads 1 \
            --format "$fmt" >"$dir/floe.$fmt"; } 2>&1 )
    ft+=("$t")
    n=$(wc -l <"$dir/floe.$fmt")
    want=$rows; [[ $fmt == csv ]] && want=$((rows + 1))
    [[ "$n" -eq "$want" ]] || { echo "floe scan --format $fmt printed $n lines, not $want" >&2; exit 1; }
    d=$( { taskset -c 0 node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing \
          "COPY (SELECT * FROM read_parquet('$files')) TO '$dir/duck.$fmt' (FORMAT $duck_fmt)" >/dev/null; } 2>&1 \
          | awk '/s COPY/ {sub("s$","",$1); print $1}')
    dt+=("$d")
  done
  floe_t[$fmt]=$(printf '%s\n' "${ft[@]}" | median)
  duck_t[$fmt]=$(printf '%s\n' "${dt[@]}" | median)
done

printf "%-40s %10s %12s %8s\n" "$rows rows, one core each" seconds rows/s ratio
for fmt in jsonl csv; do
  awk -v r="$rows" -v f="${floe_t[$fmt]}" -v d="${duck_t[$fmt]}" -v fmt="$fmt" 'BEGIN {
    printf "%-40s %10.3f %12.0f\n", "floe scan --format " fmt, f, r / f;
    printf "%-40s %10.3f %12.0f\n", "duckdb COPY read_parquet -> " fmt, d, r / d;
    printf "ratio floe/duckdb (%s): %.2fx (target >= 1.5x)\n", fmt, d / f;
  }'
done
