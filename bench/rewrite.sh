#!/usr/bin/env bash
# Compaction throughput: `floe rewrite-data-files` against DuckDB copying the
# same Parquet files (COPY (SELECT * FROM read_parquet([...])) TO ... zstd),
# each pinned to one core (taskset -c 0; DuckDB threads=1), in the same run.
# The table: the standard benchmark rows (shared/interop/bench_data.mjs) written
# by `floe write` as FILES small data files (one commit, rolled by
# target-file-size-bytes), compacted by rewrite-all into files of the table's
# target size (512 MiB: one file). floe's time is the whole command (process
# start, planning, reading, writing, the validated commit); DuckDB's is its
# COPY statement. Throughput is input Parquet bytes per second.
# Prints `floe_MB/s duckdb_MB/s ratio input_files input_MB floe_out_MB duckdb_out_MB`.
#
#   bench/rewrite.sh [BUILD_DIR]     (default: build/release)
#
# Env: FLOE_SHARED (default <repo>/../shared or /work/shared), FLOE_BENCH_DIR
# (default /tmp/floe_bench_rewrite), ROWS (default 2000000), FILES (about how
# many input files, default 40), REPS (default 3: each side runs REPS times,
# alternating, its best rate counts).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build/release}"
shared="${FLOE_SHARED:-}"
if [[ -z "$shared" ]]; then
  for c in "$here/../shared" "$here/../../shared" /work/shared; do
    [[ -f "$c/interop/bench_data.mjs" ]] && { shared="$(cd "$c" && pwd)"; break; }
  done
fi
dir="${FLOE_BENCH_DIR:-/tmp/floe_bench_rewrite}"
rows="${ROWS:-2000000}"
files="${FILES:-40}"
reps="${REPS:-3}"
floe="$build/floe"
[[ -x "$floe" ]] || { echo "build $floe first (cmake --build --preset release --target floe)" >&2; exit 2; }
mkdir -p "$dir"
stamp="$dir/.rows_$rows"
if [[ ! -f "$stamp" || ! -f "$dir/bench.csv" ]]; then
  node "$shared/interop/bench_data.mjs" --rows "$rows" --format csv "$dir/bench.csv"
  touch "$stamp"
fi
schema="id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN"

# A fresh table of small files, and its files as a DuckDB list.
make_table() {
  rm -rf "$dir/wh"
  "$floe" write --catalog "warehouse=$dir/wh" --table db.t --schema "$schema" --input-format csv \
    --input "$dir/bench.csv" --set "target-file-size-bytes=$(( $(stat -c %s "$dir/bench.csv") / files / 6 ))" \
    >/dev/null
  mapfile -t inputs < <(find "$dir/wh/db/t/data" -name '*.parquet' | sort)
  input_bytes=0
  for f in "${inputs[@]}"; do input_bytes=$(( input_bytes + $(stat -c %s "$f") )); done
  list=$(printf "'%s'," "${inputs[@]}")
  list="[${list%,}]"
}

floe_best=0
duck_best=0
floe_out=0
duck_out=0
for ((r = 0; r < reps; r++)); do
  make_table
  start=$(date +%s.%N)
  taskset -c 0 "$floe" rewrite-data-files --catalog "warehouse=$dir/wh" --table db.t \
    --set rewrite-all=true --set max-concurrent-file-group-rewrites=1 >"$dir/rewrite.json"
  end=$(date +%s.%N)
  rate=$(python3 -c "print($input_bytes / ($end - $start) / 1e6)")
  python3 -c "import sys; sys.exit(0 if $rate > $floe_best else 1)" && floe_best=$rate
  floe_out=$(python3 -c "
import json,subprocess
out=subprocess.run(['$floe','files','--catalog','warehouse=$dir/wh','--table','db.t'],capture_output=True,text=True).stdout
print(sum(json.loads(l)['file-size-in-bytes'] for l in out.splitlines() if l))")
  t=$( { taskset -c 0 node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing \
        "COPY (SELECT * FROM read_parquet($list)) TO '$dir/duckdb.parquet' (FORMAT parquet, COMPRESSION zstd)" \
        >/dev/null; } 2>&1 | awk '/s COPY/ {sub("s","",$1); print $1}')
  rate=$(python3 -c "print($input_bytes / $t / 1e6)")
  python3 -c "import sys; sys.exit(0 if $rate > $duck_best else 1)" && duck_best=$rate
  duck_out=$(stat -c %s "$dir/duckdb.parquet")
done
printf '%-12s %12s %7s %11s %9s %11s %13s\n' floe_MB/s duckdb_MB/s ratio input_files input_MB floe_out_MB duckdb_out_MB
python3 -c "print('%-12.1f %12.1f %6.2fx %11d %9.1f %11.1f %13.1f' % ($floe_best, $duck_best, $floe_best/$duck_best, ${#inputs[@]}, $input_bytes/1e6, $floe_out/1e6, $duck_out/1e6))"
