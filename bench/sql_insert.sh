#!/usr/bin/env bash
# SQL engine benchmark, in one run:
#  1. `INSERT INTO <iceberg table> SELECT * FROM <filesystem JSON table>` via
#     `floe sql` over the standard 5,000,000-row JSONL file
#     (shared/interop/bench_data.mjs, as bench/iceberg_write.sh makes it) vs
#     `floe write` of the same file into a new table (the anchor). Median
#     wall time of REPS runs per side; target: SQL within 10% of floe write.
#  2. A datagen -> blackhole job (DATAGEN_ROWS rows: a sequence and random
#     fields, no pacing): rows/s of the engine's source/projection/sink path.
#
#   bench/sql_insert.sh [BUILD_DIR]      (default: build/release)
#
# Env: FLOE_SHARED, ROWS (default 5000000), REPS (default 3), DATAGEN_ROWS
# (default 20000000), FLOE_BENCH_DIR (default BUILD_DIR/bench_sql: data is
# cached there).
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
gen_rows="${DATAGEN_ROWS:-20000000}"
dir="${FLOE_BENCH_DIR:-$build/bench_sql}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
[[ -x "$build/floe" ]] || { echo "build $build/floe first" >&2; exit 2; }
eval "$(bash "$shared/interop/install.sh" 2>/dev/null)" || true

data="$dir/bench_$rows.jsonl"
[[ -f "$data" ]] || node "$shared/interop/bench_data.mjs" --rows "$rows" --format jsonl "$data"
schema="id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN"
sql_columns="id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP(6), flag BOOLEAN"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
TIMEFORMAT='%R %U %S'

cat >"$dir/insert.sql" <<EOF
CREATE CATALOG c WITH ('type'='iceberg', 'catalog-type'='hadoop', 'warehouse'='$dir/warehouse_sql');
CREATE DATABASE c.bench;
CREATE TABLE c.bench.events ($sql_columns);
CREATE TEMPORARY TABLE src ($sql_columns) WITH ('connector'='filesystem', 'path'='$data', 'format'='json');
INSERT INTO c.bench.events SELECT * FROM src;
EOF
cat >"$dir/datagen.sql" <<EOF
CREATE TEMPORARY TABLE gen (id BIGINT, user_id BIGINT, amount DOUBLE, name STRING) WITH ('connector'='datagen',
  'rows-per-second'='1000000000', 'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='$gen_rows',
  'fields.user_id.min'='0', 'fields.user_id.max'='1000000', 'fields.name.length'='12');
CREATE TEMPORARY TABLE hole (id BIGINT, user_id BIGINT, amount DOUBLE, name STRING) WITH ('connector'='blackhole');
INSERT INTO hole SELECT * FROM gen;
EOF

write_times=() write_cpus=() sql_times=() sql_cpus=() gen_times=()
for ((r = 0; r < reps; r++)); do
  rm -rf "$dir/warehouse" "$dir/warehouse_sql"
  t=$( { time "$build/floe" write --catalog warehouse="$dir/warehouse" --table bench.events \
          --schema "$schema" --input "$data" >"$dir/write_out.json"; } 2>&1 )
  write_times+=("$(awk '{print $1}' <<<"$t")")
  write_cpus+=("$(awk '{print $2 + $3}' <<<"$t")")
  grep -q "\"rows\":$rows" "$dir/write_out.json" || { echo "floe write: $(cat "$dir/write_out.json")" >&2; exit 1; }
  t=$( { time "$build/floe" sql -f "$dir/insert.sql" >"$dir/sql_out.txt"; } 2>&1 )
  sql_times+=("$(awk '{print $1}' <<<"$t")")
  sql_cpus+=("$(awk '{print $2 + $3}' <<<"$t")")
  grep -q "Complete execution" "$dir/sql_out.txt" || { echo "floe sql: $(cat "$dir/sql_out.txt")" >&2; exit 1; }
  t=$( { time "$build/floe" sql -f "$dir/datagen.sql" >"$dir/gen_out.txt"; } 2>&1 )
  gen_times+=("$(awk '{print $1}' <<<"$t")")
done
# The SQL side wrote every row: count them back through a scan of the table.
n=$("$build/floe" scan --catalog warehouse="$dir/warehouse_sql" --table bench.events --columns id | wc -l)
[[ "$n" == "$rows" ]] || { echo "floe sql wrote $n rows, expected $rows" >&2; exit 1; }
write_s=$(printf '%s\n' "${write_times[@]}" | median)
write_cpu=$(printf '%s\n' "${write_cpus[@]}" | median)
sql_s=$(printf '%s\n' "${sql_times[@]}" | median)
sql_cpu=$(printf '%s\n' "${sql_cpus[@]}" | median)
gen_s=$(printf '%s\n' "${gen_times[@]}" | median)
awk -v r="$rows" -v w="$write_s" -v wc="$write_cpu" -v s="$sql_s" -v sc="$sql_cpu" -v g="$gen_s" -v gr="$gen_rows" 'BEGIN {
  printf "%-46s %10s %14s\n", "", "seconds", "rows/s";
  printf "%-46s %10.2f %14.0f   (cpu %.2fs)\n", "floe write (jsonl -> iceberg)", w, r / w, wc;
  printf "%-46s %10.2f %14.0f   (cpu %.2fs)\n", "floe sql INSERT iceberg SELECT * FROM filesystem", s, r / s, sc;
  printf "SQL / floe write wall time: %.3f (target <= 1.10)\n", s / w;
  printf "%-46s %10.2f %14.0f\n", "floe sql datagen -> blackhole (" gr " rows)", g, gr / g;
}'
