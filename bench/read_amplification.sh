#!/usr/bin/env bash
# Read amplification of merge-on-read tables (issue 24, section 5), one core
# (taskset -c 0, floe scan --threads 1), every series measured in one run:
#   1,000,000 keyed rows written with `floe write` merge-on-read (one commit,
#   no deletes: every key is born in it), then COMMITS commits of UPDATES random
#   updates each (one `floe write` per commit). After 0 (fresh), 1, 10, 50 and
#   100 commits: a full `floe scan` to JSONL (> /dev/null), best of REPS runs
#   in CPU seconds (user + system: steadier than wall time on a shared
#   machine; TIME=wall for wall seconds), and its ratio to the same series'
#   fresh table. The series (SERIES, default
#   all four):
#     position-file       format v2, a position delete file per data file a
#                         commit changes (write.delete.granularity=file, the default)
#     position-partition  format v2, one position delete file per partition per
#                         commit (write.delete.granularity=partition)
#     v3-vectors          format v3, a deletion vector per data file (one Puffin
#                         file per commit, merged with the file's live vector)
#     equality            format v2, delete_kind=equality: an equality delete
#                         file of the keys each commit changed
#   Targets (issue 24): <= 1.5x at 100 commits with position deletes or
#   vectors, <= 3x with equality deletes.
#   WRITE_OPTIONS="--set k=v ..." runs one series of its own instead.
#   With FLOE_BEFORE=path/to/floe the same scans by that binary (e.g. the
#   branch point's), whose rows must be the same.
#   DuckDB reading the fresh table's Parquet files to JSON is the anchor.
#   bench/read_amplification.sh
#   SERIES="v3-vectors equality" ROWS=100000 bench/read_amplification.sh
#   FLOE_BEFORE=/tmp/floe-old bench/read_amplification.sh
# Needs a release build (build/release/floe) and the interop oracles (DuckDB).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${FLOE_SHARED:-$(cd "$root/../shared" && pwd)}
build=${FLOE_BUILD:-$root/build/release}
rows=${ROWS:-1000000}
updates=${UPDATES:-5000}
commits=${COMMITS:-100}
points=${POINTS:-"0 1 10 50 100"}
reps=${REPS:-3}
before=${FLOE_BEFORE:-}
series=${SERIES:-"position-file position-partition v3-vectors equality"}
work="$build/bench/read_amplification"
mkdir -p "$work"
eval "$(bash "$shared/interop/install.sh")"
export ICEBERG_INTEROP_NODE_MODULES

floe="$build/floe"
wh="$work/wh"
schema="id BIGINT, name STRING, amount DOUBLE, op STRING, seq BIGINT"

# Seconds of the fastest of $reps full scans by floe binary $1, output
# discarded: CPU seconds (user + system; the scan runs on one thread), which a
# machine shared with other work disturbs far less than wall time; TIME=wall
# for wall seconds. Bash's own `time` in milliseconds (/usr/bin/time prints
# 10 ms steps: 10 % of a fresh scan here).
best() {
  local best_s="" TIMEFORMAT="%3U %3S" t
  [ "${TIME:-cpu}" = wall ] && TIMEFORMAT="%3R 0"
  for _ in $(seq "$reps"); do
    t=$( { time taskset -c 0 "$1" scan --catalog "warehouse=$wh" --table b.t --threads 1 >/dev/null \
             2>"$work/err.txt"; } 2>&1 ) || { cat "$work/err.txt" >&2; return 1; }
    local s; s=$(awk '{ print $1 + $2 }' <<<"$t")
    best_s=$(awk -v a="$best_s" -v b="$s" 'BEGIN { print (a == "" || b < a) ? b : a }')
  done
  echo "$best_s"
}
scan() { "$1" scan --catalog "warehouse=$wh" --table b.t --threads 1; }

awk -v n="$rows" 'BEGIN { for (i = 0; i < n; i++)
  printf "{\"id\":%d,\"name\":\"name-%d\",\"amount\":%.2f,\"op\":\"INSERT\",\"seq\":1}\n", i, i, i * 0.25 }' \
  >"$work/init.jsonl"

echo "read amplification: $rows rows, commits of $updates random updates (merge-on-read),"
echo "  floe scan --threads 1 to JSONL on one core (taskset -c 0), best of $reps, ${TIME:-cpu} seconds; ratio: to the series' fresh table"

# One series: $1 its name, the rest the options of its every `floe write`.
run_series() {
  local name=$1; shift
  local mor=(--set mode=merge-on-read --set change_type_column=op --set sequence_number_column=seq
             --set equality_columns=id --set write-parallelism=1 "$@")
  rm -rf "$wh"
  taskset -c 0 "$floe" write --no-progress --catalog "warehouse=$wh" --table b.t -i "$work/init.jsonl" \
    --schema "$schema" "${mor[@]}" >/dev/null
  fresh_files=$(ls "$wh"/b/t/data/*.parquet | paste -sd, -)
  echo "series $name (${*})"
  printf "  %7s %6s %8s %12s %9s %9s %7s" commits files deletes delete_keys table_MB scan_s ratio
  [ -n "$before" ] && printf " %9s %7s" before_s ratio
  printf "\n"
  local done_commits=0 delete_keys=0 fresh="" fresh_before=""
  for point in $points; do
    while [ "$done_commits" -lt "$point" ]; do
      done_commits=$((done_commits + 1))
      awk -v n="$updates" -v keys="$rows" -v c="$done_commits" 'BEGIN { srand(1000 + c); for (i = 0; i < n; i++)
        printf "{\"id\":%d,\"name\":\"upd-%d-%d\",\"amount\":%.2f,\"op\":\"UPDATE_AFTER\",\"seq\":%d}\n",
          int(rand() * keys), c, i, i * 0.5, (c + 1) * 1000000 + i }' >"$work/update.jsonl"
      out=$(taskset -c 0 "$floe" write --no-progress --catalog "warehouse=$wh" --table b.t -i "$work/update.jsonl" "${mor[@]}")
      delete_keys=$((delete_keys + $(sed -n 's/.*"deletes_written":\([0-9]*\).*/\1/p' <<<"$out")))
    done
    local data_files delete_files mb n s
    data_files=$(ls "$wh"/b/t/data/ | grep -v -- '-deletes\.' | grep -c '\.parquet$' || true)
    delete_files=$(ls "$wh"/b/t/data/ | grep -c -- '-deletes\.' || true)
    mb=$(du -sb "$wh/b/t/data" | awk '{ printf "%.1f", $1 / 1048576 }')
    n=$(scan "$floe" | wc -l)
    if [ "$n" != "$rows" ]; then echo "read_amplification: $n rows after $point commits ($name), expected $rows" >&2; exit 1; fi
    s=$(best "$floe")
    [ -z "$fresh" ] && fresh=$s
    printf "  %7d %6d %8d %12d %9s %9.3f %6.2fx" "$point" "$data_files" "$delete_files" "$delete_keys" "$mb" "$s" \
      "$(awk -v a="$s" -v b="$fresh" 'BEGIN { print a / b }')"
    if [ -n "$before" ]; then
      if ! cmp -s <(scan "$floe" | sort) <(scan "$before" | sort); then
        echo; echo "read_amplification: $before reads other rows than $floe after $point commits ($name)" >&2; exit 1
      fi
      local sb; sb=$(best "$before")
      [ -z "$fresh_before" ] && fresh_before=$sb
      printf " %9.3f %6.2fx" "$sb" "$(awk -v a="$sb" -v b="$fresh_before" 'BEGIN { print a / b }')"
    fi
    printf "\n"
  done
  last_fresh=$fresh
}

if [ -n "${WRITE_OPTIONS:-}" ]; then
  read -r -a extra <<<"$WRITE_OPTIONS"
  run_series custom "${extra[@]}"
else
  for one in $series; do
    case $one in
      position-file) run_series "$one" --set write.delete.granularity=file ;;
      position-partition) run_series "$one" --set write.delete.granularity=partition ;;
      v3-vectors) run_series "$one" --set format-version=3 ;;
      equality) run_series "$one" --set delete_kind=equality ;;
      *) echo "read_amplification: unknown series $one" >&2; exit 2 ;;
    esac
  done
fi

# The anchor: DuckDB (one thread) reading the (last series') fresh table's
# Parquet files to JSON lines.
list="['$(sed "s/,/','/g" <<<"$fresh_files")']"
taskset -c 0 node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing \
  "COPY (SELECT id, name, amount FROM read_parquet($list)) TO '$work/duck.jsonl' (FORMAT json)" \
  >/dev/null 2>"$work/duck.txt"
duck=$(tail -1 "$work/duck.txt" | awk '{ sub("s$", "", $1); print $1 }')
printf "  duckdb, fresh table's Parquet to JSON (statement, 1 thread): %s s (floe fresh / duckdb: %.2f)\n" "$duck" \
  "$(awk -v a="$last_fresh" -v b="$duck" 'BEGIN { print a / b }')"
