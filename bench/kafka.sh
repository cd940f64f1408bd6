#!/usr/bin/env bash
# Kafka source benchmark (issue 26), measured in one run, floe pinned to one
# core (taskset -c 0; the mock cluster, librdkafka's, runs in its own process):
#   1. JSON: RECORDS records (id, name, amount, seq) produced with kcat into a
#      6-partition topic of the mock cluster (kafka_mock), then `floe write`
#      with a bounded Kafka source (latest offsets at start) into a committed
#      table: records/s per core of floe's CPU time (user + sys);
#   2. Debezium JSON: the same records as `op: c` envelopes, merge-on-read;
#   3. the file path: the same JSON lines from a file (`floe write -i`);
#   4. DuckDB (the anchor) reading the same JSON lines from the file into
#      Parquet, one thread.
# Prints the rates and the ratios Kafka / file and Kafka / DuckDB.
#   bench/kafka.sh                    # 1,000,000 records
#   RECORDS=200000 bench/kafka.sh
# Needs a release build (build/release/floe, kafka_mock), kcat and the interop oracles.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=${FLOE_SHARED:-$(cd "$root/../shared" && pwd)}
build=${FLOE_BUILD:-$root/build/release}
records=${RECORDS:-1000000}
work="$build/bench/kafka"
rm -rf "$work"
mkdir -p "$work"
eval "$(bash "$shared/interop/install.sh")"
export ICEBERG_INTEROP_NODE_MODULES

awk -v n="$records" 'BEGIN { for (i = 1; i <= n; i++)
  printf "{\"id\":%d,\"name\":\"name %d\",\"amount\":%d.25,\"seq\":%d}\n", i, i % 1000, i % 977, i }' >"$work/rows.jsonl"
awk -v n="$records" 'BEGIN { for (i = 1; i <= n; i++)
  printf "{\"before\":null,\"after\":{\"id\":%d,\"name\":\"name %d\",\"amount\":%d.25,\"seq\":%d},\"op\":\"c\",\"source\":{\"lsn\":%d}}\n", i, i % 1000, i % 977, i, i }' >"$work/dbz.jsonl"

coproc MOCK { exec "$build/kafka_mock" rows:256 dbz:256; }
read -r -u "${MOCK[0]}" boot
trap 'kill $MOCK_PID 2>/dev/null || true' EXIT
# Keyed messages (the line number, tab-separated: kcat -K), so that the
# partitioner spreads them evenly: without keys librdkafka's sticky
# partitioner fills a few partitions, and the mock cluster keeps at most
# 100,000 messages a partition (older ones are deleted, the log start moves
# on: a topic that silently holds less than what was produced).
produce() {  # topic file
  awk '{ printf "%d\t%s\n", NR, $0 }' "$2" |
    kcat -P -b "$boot" -t "$1" -K '\t' -X log_level=0 -X queue.buffering.max.messages=10000000 \
      -X queue.buffering.max.kbytes=2097151
  local held
  held=$(kcat -C -b "$boot" -t "$1" -e -q -X log_level=0 -f 'x\n' | wc -l)
  [ "$held" = "$records" ] || { echo "kafka: topic $1 holds $held messages, $records were produced" >&2; exit 1; }
}
produce rows "$work/rows.jsonl"
produce dbz "$work/dbz.jsonl"

schema="id BIGINT, name STRING, amount DOUBLE, seq BIGINT"
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" ||
    { cat "$work/err.txt" >&2; return 1; }
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/time.txt"
}
rate() { awk -v n="$records" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }
config() {  # table topic format [extra]
  printf 'table: %s\nsink_id: bench\n%ssource:\n  type: kafka\n  topic: %s\n  bootstrap_servers: %s\n  format: %s\n  bounded_mode: latest-offset\n' \
    "$1" "${4:-}" "$2" "$boot" "$3"
}
config b.kjson rows json >"$work/json.yaml"
config b.kdbz dbz debezium-json "mode: merge-on-read
" >"$work/dbz.yaml"
floe=(taskset -c 0 ${FLOE_WRAP:-} "$build/floe")
wh=(--catalog "warehouse=$work/wh")

read -r kj_wall kj_cpu kj_rss < <(measure "${floe[@]}" write --no-progress "${wh[@]}" --config "$work/json.yaml" --schema "$schema")
read -r kd_wall kd_cpu kd_rss < <(measure "${floe[@]}" write --no-progress "${wh[@]}" --config "$work/dbz.yaml" \
  --schema "id BIGINT NOT NULL, name STRING, amount DOUBLE, seq BIGINT, PRIMARY KEY (id) NOT ENFORCED")
read -r f_wall f_cpu f_rss < <(measure "${floe[@]}" write --no-progress "${wh[@]}" --table b.file -i "$work/rows.jsonl" \
  --schema "$schema" --set sink_id=bench)
read -r fd_wall fd_cpu fd_rss < <(measure "${floe[@]}" write --no-progress "${wh[@]}" --table b.fdbz -i "$work/dbz.jsonl" \
  --input-format debezium-json --set mode=merge-on-read \
  --schema "id BIGINT NOT NULL, name STRING, amount DOUBLE, seq BIGINT, PRIMARY KEY (id) NOT ENFORCED")
columns="{id: 'BIGINT', name: 'VARCHAR', amount: 'DOUBLE', seq: 'BIGINT'}"
sql="COPY (SELECT * FROM read_json('$work/rows.jsonl', format='newline_delimited', columns=$columns))
  TO '$work/duck.parquet' (FORMAT parquet, COMPRESSION zstd)"
read -r duck_wall duck_cpu duck_rss < <(measure taskset -c 0 node "$shared/interop/duckdb_sql.mjs" --threads 1 --timing "$sql")
duck_stmt=$(tail -1 "$work/err.txt" | awk '{sub("s$","",$1); print $1}')

for t in b.kjson b.kdbz b.file b.fdbz; do
  n=$("$build/floe" scan "${wh[@]}" --table "$t" | wc -l)
  [ "$n" = "$records" ] || { echo "kafka: $t has $n rows, expected $records" >&2; exit 1; }
done
echo "kafka: $records records, floe on one core (taskset -c 0), 256 partitions of the mock cluster"
printf "  kafka json          : %6.2f s wall, %6.2f s cpu, %9s records/s per core, peak RSS %d MB\n" \
  "$kj_wall" "$kj_cpu" "$(rate "$kj_cpu")" "$((kj_rss / 1024))"
printf "  kafka debezium-json : %6.2f s wall, %6.2f s cpu, %9s changes/s per core, peak RSS %d MB\n" \
  "$kd_wall" "$kd_cpu" "$(rate "$kd_cpu")" "$((kd_rss / 1024))"
printf "  file json           : %6.2f s wall, %6.2f s cpu, %9s records/s per core, peak RSS %d MB\n" \
  "$f_wall" "$f_cpu" "$(rate "$f_cpu")" "$((f_rss / 1024))"
printf "  file debezium-json  : %6.2f s wall, %6.2f s cpu, %9s changes/s per core, peak RSS %d MB\n" \
  "$fd_wall" "$fd_cpu" "$(rate "$fd_cpu")" "$((fd_rss / 1024))"
printf "  duckdb json -> parquet: %6.2f s statement, %9s records/s\n" "$duck_stmt" "$(rate "$duck_stmt")"
printf "  ratio kafka json / file json (cpu): %.2f; kafka json / duckdb (cpu vs statement): %.2f\n" \
  "$(awk -v a="$kj_cpu" -v b="$f_cpu" 'BEGIN { print b / a }')" \
  "$(awk -v a="$kj_cpu" -v b="$duck_stmt" 'BEGIN { print b / a }')"
printf "  ratio kafka debezium / file debezium (cpu): %.2f\n" "$(awk -v a="$kd_cpu" -v b="$fd_cpu" 'BEGIN { print b / a }')"
