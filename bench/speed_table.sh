#!/usr/bin/env bash
# Issue 28's speed table in one run: floe against DuckDB on the same data and
# machine, each side pinned to the same cores (taskset), 1,000,000 rows of the
# standard benchmark table (shared/interop/bench_data.mjs) unless ROWS says
# otherwise. Give two builds (e.g. an old commit's and main's) to measure
# before and after in the same run: their floe runs alternate with DuckDB's.
#
#   CSV -> Parquet zstd       floe parquet write  vs  COPY (SELECT * FROM read_csv(...)) TO ... zstd   (core 0)
#   JSONL -> Iceberg, zstd    floe write, one commit  vs  COPY (SELECT * FROM read_json(...)) TO ... zstd
#                             (1 thread each on core 0; then 2 threads each on cores 0-1)
#   full scan to JSONL / CSV  bench/scan.sh (core 0), once per build, on the same table
#   CDC, window in memory     bench/cdc.sh: CDC_MEM_CHANGES (1,670,000) changes over a tenth as many keys,
#                             sorter_memory_mb=512 (the window's states fit)
#   CDC, window spills        bench/cdc.sh: 10,000,000 changes over 1,000,000 keys, sorter_memory_mb=100
#                             (Beam's default; the states take ~300 MB)
#
# The ingest rows are the median of REPS runs per side (wall seconds; DuckDB:
# the statement's own time as duckdb_sql.mjs --timing reports it, without
# node's start), the sides alternating. The scan and CDC rows are what those
# scripts print (each measures its own DuckDB side, in this run). The table at
# the end gives seconds, the ratio DuckDB seconds / floe seconds (> 1: floe is
# faster) and the issue's target, a row per build.
#
#   bench/speed_table.sh [BUILD_DIR ...]     (default: build/release)
#
# Env: FLOE_SHARED, ROWS (default 1000000), REPS (default 5), CDC_MEM_CHANGES,
# SKIP_CDC_SPILL=1 (leave out the 10 M-change row), FLOE_BENCH_DIR (default
# build/release/bench_speed: the data is cached there).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
builds=()
for b in "${@:-$here/build/release}"; do
  b="$(cd "$b" && pwd)"
  [[ -x "$b/floe" ]] || { echo "speed_table: no floe in $b (build it first)" >&2; exit 2; }
  builds+=("$b")
done
shared="${FLOE_SHARED:-}"
if [[ -z "$shared" ]]; then
  for c in "$here/../shared" /work/shared; do
    [[ -f "$c/interop/bench_data.mjs" ]] && { shared="$(cd "$c" && pwd)"; break; }
  done
fi
export FLOE_SHARED="$shared"
rows="${ROWS:-1000000}"
reps="${REPS:-5}"
dir="${FLOE_BENCH_DIR:-$here/build/release/bench_speed}"
mkdir -p "$dir"
eval "$(bash "$shared/interop/install.sh" 2>/dev/null)"
export ICEBERG_INTEROP_NODE_MODULES

jsonl="$dir/bench_$rows.jsonl"
csv="$dir/bench_$rows.csv"
[[ -s "$jsonl" ]] || node "$shared/interop/bench_data.mjs" --rows "$rows" --format jsonl "$jsonl" >&2
[[ -s "$csv" ]] || node "$shared/interop/bench_data.mjs" --rows "$rows" --format csv "$csv" >&2
cat "$jsonl" "$csv" >/dev/null  # in the page cache, for every side
schema="id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN"
columns="{id: 'BIGINT', user_id: 'BIGINT', amount: 'DOUBLE', qty: 'INTEGER', name: 'VARCHAR', ts: 'TIMESTAMP', flag: 'BOOLEAN'}"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Wall seconds of a command, its output discarded; the script fails if it fails.
wall() {
  local TIMEFORMAT='%R' t
  t=$( { time "$@" >/dev/null 2>"$dir/stderr.txt"; } 2>&1 ) || { cat "$dir/stderr.txt" >&2; exit 1; }
  echo "$t"
}
# DuckDB's own time for a statement, on CORES with THREADS threads.
duck() {
  local cores=$1 threads=$2 sql=$3 t
  t=$( { taskset -c "$cores" node "$shared/interop/duckdb_sql.mjs" --threads "$threads" --timing "$sql" >/dev/null; } 2>&1 |
       awk '/s COPY/ {sub("s$","",$1); print $1}')
  [[ -n "$t" ]] || { echo "speed_table: DuckDB failed: $sql" >&2; exit 1; }
  echo "$t"
}
label() { git -C "$1/../.." rev-parse --short HEAD 2>/dev/null || basename "$1"; }

# secs[KEY/BUILD_INDEX] floe seconds, duck_s[KEY/BUILD_INDEX] DuckDB's, note[...] a remark.
declare -A secs duck_s note times

# CSV -> Parquet zstd, core 0.
for ((r = 0; r < reps; r++)); do
  for i in "${!builds[@]}"; do
    rm -f "$dir/floe$i.parquet"
    times[csv/$i]+="$(wall taskset -c 0 "${builds[$i]}/floe" parquet write --schema "$schema" --input "$csv" \
                       --set write.parquet.compression-codec=zstd "$dir/floe$i.parquet") "
  done
  rm -f "$dir/duck.parquet"
  times[csv/d]+="$(duck 0 1 "COPY (SELECT * FROM read_csv('$csv', header=true, columns=$columns)) TO '$dir/duck.parquet' (FORMAT parquet, COMPRESSION zstd)") "
done
for i in "${!builds[@]}"; do
  secs[csv/$i]=$(tr ' ' '\n' <<<"${times[csv/$i]}" | grep . | median)
  duck_s[csv/$i]=$(tr ' ' '\n' <<<"${times[csv/d]}" | grep . | median)
  note[csv/$i]="file $(stat -c %s "$dir/floe$i.parquet") B, DuckDB's $(stat -c %s "$dir/duck.parquet") B"
done

# JSONL -> a committed Iceberg table (zstd, floe's default codec as Iceberg's):
# one thread each on core 0, then two each on cores 0-1.
for threads in 1 2; do
  cores=$([[ $threads == 1 ]] && echo 0 || echo 0,1)
  k=iceberg$threads
  for ((r = 0; r < reps; r++)); do
    for i in "${!builds[@]}"; do
      rm -rf "$dir/warehouse$i"
      times[$k/$i]+="$(wall taskset -c "$cores" "${builds[$i]}/floe" write --no-progress --catalog warehouse="$dir/warehouse$i" \
                        --table bench.events --schema "$schema" --input "$jsonl" --set write-parallelism="$threads") "
    done
    rm -f "$dir/duck.parquet"
    times[$k/d]+="$(duck "$cores" "$threads" "COPY (SELECT * FROM read_json('$jsonl', format='newline_delimited', columns=$columns)) TO '$dir/duck.parquet' (FORMAT parquet, COMPRESSION zstd)") "
  done
  for i in "${!builds[@]}"; do
    n=$("${builds[0]}/floe" scan --catalog warehouse="$dir/warehouse$i" --table bench.events --format csv | wc -l)
    [[ "$n" -eq $((rows + 1)) ]] || { echo "speed_table: the table of ${builds[$i]} holds $((n - 1)) rows, not $rows" >&2; exit 1; }
    secs[$k/$i]=$(tr ' ' '\n' <<<"${times[$k/$i]}" | grep . | median)
    duck_s[$k/$i]=$(tr ' ' '\n' <<<"${times[$k/d]}" | grep . | median)
    note[$k/$i]="$(ls "$dir/warehouse$i"/bench/events/data/*.parquet | wc -l) files, $(cat "$dir/warehouse$i"/bench/events/data/*.parquet | wc -c) B; DuckDB's file $(stat -c %s "$dir/duck.parquet") B"
  done
done

# The scans and the CDC rows: the project's own scripts, each build in turn.
for i in "${!builds[@]}"; do
  echo "== bench/scan.sh, $(label "${builds[$i]}")"
  out=$(ROWS="$rows" REPS="$reps" FLOE_BENCH_DIR="$dir/scan" bash "$here/bench/scan.sh" "${builds[$i]}")
  echo "$out"
  for fmt in jsonl csv; do
    secs[scan_$fmt/$i]=$(awk -v f="floe scan --format $fmt" 'index($0, f) == 1 {print $(NF-1)}' <<<"$out")
    duck_s[scan_$fmt/$i]=$(awk -v f="duckdb COPY read_parquet -> $fmt" 'index($0, f) == 1 {print $(NF-1)}' <<<"$out")
  done
done
cdc_row() {  # key build_index changes keys sorter_mb
  local out
  echo "== bench/cdc.sh, $(label "${builds[$2]}")"
  out=$(FLOE_BUILD="${builds[$2]}" CDC_WORK_DIR="$dir/cdc" CHANGES="$3" KEYS="$4" SORTER_MB="$5" bash "$here/bench/cdc.sh")
  echo "$out"
  secs[$1/$2]=$(awk '/floe merge-on-read/ {print $4}' <<<"$out")
  duck_s[$1/$2]=$(awk '/duckdb latest row/ {print $5}' <<<"$out")
  note[$1/$2]="$(grep -o 'peak RSS [0-9]* MB, [0-9]* rows, [0-9]* runs spilled' <<<"$out" | head -1)"
}
mem_changes="${CDC_MEM_CHANGES:-1670000}"
for i in "${!builds[@]}"; do
  cdc_row cdc_mem "$i" "$mem_changes" $((mem_changes / 10)) 512
done
if [[ "${SKIP_CDC_SPILL:-0}" != 1 ]]; then
  for i in "${!builds[@]}"; do
    cdc_row cdc_spill "$i" 10000000 1000000 100
  done
fi

echo
echo "speed table: $rows rows, median of $reps runs per side; ratio = DuckDB s / floe s (> 1: floe faster)"
printf '%-40s %-9s %8s %8s %7s  %-8s %s\n' work build floe_s duck_s ratio target notes
row() {  # key label target
  local i
  for i in "${!builds[@]}"; do
    [[ -n "${secs[$1/$i]:-}" ]] || continue
    awk -v f="${secs[$1/$i]}" -v d="${duck_s[$1/$i]}" -v l="$2" -v b="$(label "${builds[$i]}")" -v t="$3" \
        -v n="${note[$1/$i]:-}" 'BEGIN { printf "%-40s %-9s %8.3f %8.3f %6.2fx  %-8s %s\n", l, b, f, d, d / f, t, n }'
  done
}
row csv "CSV -> Parquet zstd, 1 core" ">= 1.6x"
row iceberg1 "JSONL -> Iceberg zstd, 1 thread each" ">= 2x"
row iceberg2 "JSONL -> Iceberg zstd, 2 threads each" ">= 2.5x"
row scan_jsonl "full scan to JSONL, 1 core" ">= 1.5x"
row scan_csv "full scan to CSV, 1 core" ">= 1.5x"
row cdc_mem "CDC merge-on-read, window in memory" ">= 1.5x"
row cdc_spill "CDC, sorter_memory_mb=100, spilling" ">= 1.2x"
