#!/usr/bin/env bash
# S3 write benchmark: `floe write` of the standard 5,000,000-row JSONL file
# (shared/interop/bench_data.mjs) into a new Iceberg table (hadoop catalog,
# zstd Parquet, one commit) with the warehouse on the S3 test server
# (shared/interop/s3_server.cjs, on loopback) vs the same write to local
# disk, in the same run. Median of REPS runs per side (wall time), the ratio
# S3/local, and the peak RSS of each (GNU time's "Maximum resident set
# size") next to the S3 FileIO's multipart memory budget: the S3 write must
# stream, so its peak may exceed the local write's by no more than that
# budget. The S3 side includes the test server's own work on the same
# cores (it is a node process storing every part to disk): the ratio is
# an upper bound on what the FileIO costs, not the cost of a real store.
#
#   bench/s3_write.sh [BUILD_DIR]      (default: build/release)
#
# Env: FLOE_SHARED, ROWS (default 5000000), REPS (default 3),
# PART_SIZE (s3.multipart.part-size-bytes; default: the FileIO's own),
# FLOE_BENCH_DIR (default BUILD_DIR/bench_s3: data is cached there).
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
dir="${FLOE_BENCH_DIR:-$build/bench_s3}"
mkdir -p "$dir"
[[ -x "$build/floe" ]] || { echo "build $build/floe first" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "GNU time (/usr/bin/time, package time) is needed for the peak RSS" >&2; exit 2; }
eval "$(bash "$shared/interop/install.sh" 2>/dev/null)" || true

data="$dir/bench_$rows.jsonl"
[[ -f "$data" ]] || node "$shared/interop/bench_data.mjs" --rows "$rows" --format jsonl "$data"
schema="id BIGINT, user_id BIGINT, amount DOUBLE, qty INT, name STRING, ts TIMESTAMP, flag BOOLEAN"

# The test server, on a free port, its store under $dir/store.
server_pid=""
stop_server() { [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; server_pid=""; }
trap stop_server EXIT
rm -rf "$dir/store" && mkdir -p "$dir/store"
node --openssl-legacy-provider "$shared/interop/s3_server.cjs" --dir "$dir/store" --port 0 \
  --bucket bench --key benchkey --secret benchsecret >"$dir/server.out" 2>"$dir/server.err" &
server_pid=$!
for _ in $(seq 1 100); do
  grep -q "S3 test server on" "$dir/server.out" 2>/dev/null && break
  sleep 0.1
done
endpoint=$(sed -n 's/^S3 test server on \(http:[^ ]*\) .*/\1/p' "$dir/server.out")
[[ -n "$endpoint" ]] || { echo "the S3 test server did not start: $(cat "$dir/server.err")" >&2; exit 1; }
s3_catalog=(--catalog warehouse=s3://bench/wh --catalog "s3.endpoint=$endpoint"
  --catalog s3.access-key-id=benchkey --catalog s3.secret-access-key=benchsecret
  --catalog s3.path-style-access=true)
[[ -n "${PART_SIZE:-}" ]] && s3_catalog+=(--catalog "s3.multipart.part-size-bytes=$PART_SIZE")

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Runs a command under GNU time; prints "wall_seconds peak_rss_kib cpu_seconds".
timed() {
  /usr/bin/time -f '%e %M %U %S' -o "$dir/time.out" "$@" >"$dir/floe_out.json" 2>"$dir/floe_err.txt" \
    || { echo "failed: $* : $(cat "$dir/floe_err.txt")" >&2; exit 1; }
  awk '{print $1, $2, $3 + $4}' "$dir/time.out"
}

s3_times=() s3_rss=() s3_cpu=() local_times=() local_rss=() local_cpu=()
for ((r = 0; r < reps; r++)); do
  rm -rf "$dir/warehouse"
  read -r t m c < <(timed "$build/floe" write --catalog warehouse="$dir/warehouse" \
    --table bench.events --schema "$schema" --input "$data")
  local_times+=("$t") local_rss+=("$m") local_cpu+=("$c")
  grep -q "\"rows\":$rows" "$dir/floe_out.json" || { echo "local write: $(cat "$dir/floe_out.json")" >&2; exit 1; }

  table="bench.events$r"  # a new table per run: the store keeps the earlier ones
  read -r t m c < <(timed "$build/floe" write "${s3_catalog[@]}" --table "$table" \
    --schema "$schema" --input "$data")
  s3_times+=("$t") s3_rss+=("$m") s3_cpu+=("$c")
  grep -q "\"rows\":$rows" "$dir/floe_out.json" || { echo "s3 write: $(cat "$dir/floe_out.json")" >&2; exit 1; }
  s3_out=$(cat "$dir/floe_out.json")
done
# The last S3 table reads back whole.
count=$("$build/floe" scan "${s3_catalog[@]}" --table "bench.events$((reps - 1))" --columns id | wc -l)
[[ "$count" == "$rows" ]] || { echo "scan of the S3 table read $count rows, not $rows" >&2; exit 1; }

local_s=$(printf '%s\n' "${local_times[@]}" | median)
local_m=$(printf '%s\n' "${local_rss[@]}" | median)
local_c=$(printf '%s\n' "${local_cpu[@]}" | median)
s3_s=$(printf '%s\n' "${s3_times[@]}" | median)
s3_m=$(printf '%s\n' "${s3_rss[@]}" | sort -g | tail -1)
s3_c=$(printf '%s\n' "${s3_cpu[@]}" | median)
files=$(grep -o '"files":[0-9]*' <<<"$s3_out" | cut -d: -f2)
bytes=$(grep -o '"bytes":[0-9]*' <<<"$s3_out" | cut -d: -f2)
objects=$(find "$dir/store/bench" -name '*._S3rver_object' | wc -l)
awk -v r="$rows" -v l="$local_s" -v s="$s3_s" -v lm="$local_m" -v sm="$s3_m" -v lc="$local_c" \
    -v sc="$s3_c" -v files="$files" -v bytes="$bytes" -v reps="$reps" -v objects="$objects" 'BEGIN {
  printf "%-30s %10s %14s %14s %10s\n", "", "seconds", "rows/s", "peak RSS MiB", "cpu s";
  printf "%-30s %10.2f %14.0f %14.1f %10.2f\n", "floe write, local disk", l, r / l, lm / 1024, lc;
  printf "%-30s %10.2f %14.0f %14.1f %10.2f   (%d files, %d bytes)\n", "floe write, S3 test server", s, r / s, sm / 1024, sc, files, bytes;
  printf "ratio S3/local wall time: %.2fx (median of %d runs each; S3 peak RSS is the highest run)\n", s / l, reps;
  printf "S3 peak RSS over local: %.1f MiB (%d objects in the store after %d S3 runs)\n", (sm - lm) / 1024, objects, reps;
}'
# The S3 FileIO's stated budget (src/floe/s3/s3_client.h, S3Config): an
# output holds at most (max_parts_in_flight + 1) parts, 2 + 1 by default.
part="${PART_SIZE:-33554432}"
awk -v p="$part" -v lm="$local_m" -v sm="$s3_m" 'BEGIN {
  b = 3 * p / 1048576;
  printf "multipart budget per open output: 3 x %.0f MiB parts = %.0f MiB; S3 peak - local peak = %.1f MiB (%s)\n",
    p / 1048576, b, (sm - lm) / 1024, ((sm - lm) / 1024 <= b) ? "within the budget" : "OVER the budget";
}'
