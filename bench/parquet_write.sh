#!/usr/bin/env bash
# Parquet write benchmark: floe's writer vs DuckDB (threads=1) on the standard
# 5,000,000-row table (shared/interop/bench_data.mjs), zstd and snappy, in the same run.
# Prints rows/s for both, the ratio and both output sizes.
#
#   bench/parquet_write.sh [BUILD_DIR]     (default: build/release)
#
# Env: FLOE_SHARED (default <repo>/../shared or /work/shared), FLOE_BENCH_DIR (default
# /tmp/floe_bench: data and outputs), ROWS (default 5000000), REPS (default 3: each side
# runs REPS times, alternating, and its best wall-clock rate counts, which damps the
# noise of a shared machine).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
shared="${FLOE_SHARED:-}"
if [[ -z "$shared" ]]; then
  for c in "$here/../shared" "$here/../../shared" /work/shared; do
    [[ -f "$c/interop/bench_data.mjs" ]] && { shared="$(cd "$c" && pwd)"; break; }
  done
fi
dir="${FLOE_BENCH_DIR:-/tmp/floe_bench}"
rows="${ROWS:-5000000}"
mkdir -p "$dir"
[[ -x "$build/writer_benchmark" ]] || { echo "build $build/writer_benchmark first" >&2; exit 2; }

# The same rows for both: DuckDB reads the Parquet form, floe loads the CSV form into
# memory before timing.
stamp="$dir/.rows_$rows"
if [[ ! -f "$stamp" || ! -f "$dir/bench.csv" || ! -f "$dir/bench.parquet" ]]; then
  node "$shared/interop/bench_data.mjs" --rows "$rows" --format parquet "$dir/bench.parquet"
  node "$shared/interop/bench_data.mjs" --rows "$rows" --format csv "$dir/bench.csv"
  touch "$stamp"
fi

printf '%-7s %14s %14s %7s %14s %14s %8s\n' codec floe_rows/s duckdb_rows/s ratio floe_bytes duckdb_bytes size%
reps="${REPS:-3}"
for codec in zstd snappy; do
  floe_rps=0
  duck_rps=0
  for ((r = 0; r < reps; r++)); do
    out=$(FLOE_BENCH_CSV="$dir/bench.csv" FLOE_BENCH_OUT="$dir" "$build/writer_benchmark" \
          --benchmark_filter="BM_WriteBenchTable/$codec/" --benchmark_repetitions=1 \
          --benchmark_min_time=0.01 --benchmark_format=json 2>/dev/null)
    f=$(printf '%s' "$out" | python3 -c 'import json,sys; b=json.load(sys.stdin)["benchmarks"][0]; print(int(b["rows_per_s"]))')
    (( f > floe_rps )) && floe_rps=$f
    t=$( { node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing \
          "COPY (SELECT * FROM read_parquet('$dir/bench.parquet')) TO '$dir/duckdb_$codec.parquet' (FORMAT parquet, COMPRESSION $codec)" >/dev/null; } 2>&1 | awk '/s COPY/ {sub("s","",$1); print $1}')
    d=$(python3 -c "print(int($rows/$t))")
    (( d > duck_rps )) && duck_rps=$d
  done
  floe_bytes=$(stat -c %s "$dir/floe_$codec.parquet")
  duck_bytes=$(stat -c %s "$dir/duckdb_$codec.parquet")
  python3 -c "print('%-7s %14d %14d %6.2fx %14d %14d %+7.1f%%' % ('$codec', $floe_rps, $duck_rps, $floe_rps/$duck_rps, $floe_bytes, $duck_bytes, 100.0*($floe_bytes-$duck_bytes)/$duck_bytes))"
done
