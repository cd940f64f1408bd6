#!/usr/bin/env bash
# JSONL ingest benchmark against DuckDB, measured in the same run, one thread each.
#
#  1. decode only: the JSONL rows of the standard benchmark table
#     (shared/interop/bench_data.mjs, 5,000,000 rows by default) decoded into
#     floe batches (jsonl_benchmark BM_JsonlDecodeFile) vs DuckDB
#     `SELECT count(*) FROM read_json(..., columns={...})`, and vs DuckDB
#     counting every column (which makes it convert every value, as floe does);
#  2. end to end: `floe parquet write` (zstd) vs DuckDB
#     `COPY (SELECT * FROM read_json(..., columns={...})) TO '...parquet' (FORMAT parquet, COMPRESSION zstd)`.
# Prints rows/s of each side and the ratio floe/DuckDB (> 1 = floe faster).
#
#   bench/jsonl_ingest.sh                # 5,000,000 rows
#   ROWS=1000000 bench/jsonl_ingest.sh   # smaller
# Needs a release build (build/release: floe, jsonl_benchmark) and the interop
# oracles (shared/interop/install.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${FLOE_SHARED:-$(cd "$root/../shared" && pwd)}
build=${FLOE_BUILD:-$root/build/release}
rows=${ROWS:-5000000}
work="$build/bench"
mkdir -p "$work"
eval "$(bash "$shared/interop/install.sh")"
export ICEBERG_INTEROP_NODE_MODULES

data="$work/rows_$rows.jsonl"
if [ ! -s "$data" ]; then
  echo "bench: generating $data" >&2
  node "$shared/interop/bench_data.mjs" --rows "$rows" --format jsonl "$data.tmp" >&2
  mv "$data.tmp" "$data"
fi
cat "$data" >/dev/null  # warm the page cache for both sides

schema="id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN"
columns="{id: 'BIGINT', user_id: 'BIGINT', amount: 'DOUBLE', qty: 'INTEGER', name: 'VARCHAR', ts: 'TIMESTAMP', flag: 'BOOLEAN'}"
read_json="read_json('$data', format='newline_delimited', columns=$columns)"

# Each measurement: wall seconds of the work itself (DuckDB: the statement as
# duckdb_sql.mjs --timing reports it, without node's start-up) and CPU seconds
# (user + sys) of the whole process, which a busy machine disturbs less.
cpu_of() {  # runs "$@", prints "<cpu seconds>" of it on fd 3
  local TIMEFORMAT='%U %S' t
  t=$( { time "$@" >/dev/null 2>"$work/stderr.txt"; } 2>&1 ) || { cat "$work/stderr.txt" >&2; return 1; }
  awk -v t="$t" 'BEGIN { split(t, a, " "); print a[1] + a[2] }'
}
rate() { awk -v r="$rows" -v s="$1" 'BEGIN { printf "%.0f", r / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
duck_stmt_secs() { tail -1 "$work/stderr.txt" | awk '{sub("s$","",$1); print $1}'; }

# 1. Decode only.
export FLOE_BENCH_JSONL_FILE="$data"
floe_decode_cpu=$(cpu_of "$build/jsonl_benchmark" --benchmark_filter='BM_JsonlDecodeFile' \
  --benchmark_format=json --benchmark_out="$work/decode.json")
floe_decode=$(node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).benchmarks[0];
  if (r.error_occurred) { console.error(r.error_message); process.exit(1); }
  if (Math.round(r.rows) !== Number(process.argv[2])) { console.error(`decoded ${r.rows} rows`); process.exit(1); }
  console.log(r.real_time / 1000);' "$work/decode.json" "$rows")
duck_decode_cpu=$(cpu_of node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing "SELECT count(*) FROM $read_json")
duck_decode=$(duck_stmt_secs)
# DuckDB's count(*) need not convert any value; counting every column makes it
# materialize all seven, as floe's decoder does.
duck_all_cpu=$(cpu_of node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing \
  "SELECT count(id), count(user_id), count(amount), count(qty), count(name), count(ts), count(flag) FROM $read_json")
duck_all=$(duck_stmt_secs)

# 2. End to end: JSONL -> Parquet (zstd).
rm -f "$work/floe.parquet" "$work/duckdb.parquet"
t0=$(date +%s.%N)
floe_write_cpu=$(cpu_of "$build/floe" parquet write --schema "$schema" --input "$data" \
  --set write.parquet.compression-codec=zstd "$work/floe.parquet")
t1=$(date +%s.%N)
floe_write=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
duck_write_cpu=$(cpu_of node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing \
  "COPY (SELECT * FROM $read_json) TO '$work/duckdb.parquet' (FORMAT parquet, COMPRESSION zstd)")
duck_write=$(duck_stmt_secs)
floe_size=$(stat -c %s "$work/floe.parquet")
duck_size=$(stat -c %s "$work/duckdb.parquet")

printf '%-30s %14s %14s %7s   %14s %14s %7s\n' "jsonl_ingest, $rows rows" "floe rows/s" "duckdb rows/s" "ratio" \
  "floe rows/cpu-s" "duckdb rows/cpu-s" "ratio"
printf '%-30s %14s %14s %7s   %14s %14s %7s\n' "decode (read_json count(*))" \
  "$(rate "$floe_decode")" "$(rate "$duck_decode")" "$(ratio "$floe_decode" "$duck_decode")" \
  "$(rate "$floe_decode_cpu")" "$(rate "$duck_decode_cpu")" "$(ratio "$floe_decode_cpu" "$duck_decode_cpu")"
printf '%-30s %14s %14s %7s   %14s %14s %7s\n' "decode (count of every column)" \
  "$(rate "$floe_decode")" "$(rate "$duck_all")" "$(ratio "$floe_decode" "$duck_all")" \
  "$(rate "$floe_decode_cpu")" "$(rate "$duck_all_cpu")" "$(ratio "$floe_decode_cpu" "$duck_all_cpu")"
printf '%-30s %14s %14s %7s   %14s %14s %7s\n' "jsonl -> parquet zstd" \
  "$(rate "$floe_write")" "$(rate "$duck_write")" "$(ratio "$floe_write" "$duck_write")" \
  "$(rate "$floe_write_cpu")" "$(rate "$duck_write_cpu")" "$(ratio "$floe_write_cpu" "$duck_write_cpu")"
printf 'wall s: decode floe %.3f duckdb %.3f; write floe %.3f duckdb %.3f\n' "$floe_decode" "$duck_decode" "$floe_write" "$duck_write"
printf 'cpu s:  decode floe %.3f duckdb %.3f; write floe %.3f duckdb %.3f (duckdb: whole node process)\n' \
  "$floe_decode_cpu" "$duck_decode_cpu" "$floe_write_cpu" "$duck_write_cpu"
printf 'parquet bytes: floe %s duckdb %s (%.3fx)\n' "$floe_size" "$duck_size" "$(awk -v a="$floe_size" -v b="$duck_size" 'BEGIN { print a / b }')"
printf 'load average during the run: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
