#!/usr/bin/env bash
# End-to-end latency of the Kafka source (issue 26): a `floe write` reading a
# topic of the mock cluster with triggering_frequency_seconds: 1; SAMPLES
# records are produced one at a time (kcat), and for each the time from
# before its produce until `floe scan` shows it (the scan polls every 20 ms,
# and its own run time is part of the figure). Prints p50 / p99 / max and the
# consumer's peak RSS.
#   bench/kafka_latency.sh            # 50 samples
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FLOE_BUILD:-$root/build/release}
samples=${SAMPLES:-50}
work="$build/bench/kafka_latency"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
coproc MOCK { exec "$build/kafka_mock" lat:4; }
read -r -u "${MOCK[0]}" boot
printf 'table: b.lat\nsink_id: lat\ntriggering_frequency_seconds: 1\nsource:\n  type: kafka\n  topic: lat\n  bootstrap_servers: %s\n  format: json\n' "$boot" >lat.yaml
"$build/floe" write --no-progress --catalog warehouse=./wh --config lat.yaml \
  --schema 'id BIGINT, v STRING' >out.txt 2>err.txt &
floe_pid=$!
trap 'kill $floe_pid 2>/dev/null || true; kill $MOCK_PID 2>/dev/null || true' EXIT
: >lat.txt
for i in $(seq 1 "$samples"); do
  t0=$(date +%s%N)
  echo "{\"id\":$i,\"v\":\"x\"}" | kcat -P -b "$boot" -t lat -X log_level=0
  until [ -d wh/b/lat ] && [ "$("$build/floe" scan --catalog warehouse=./wh --table b.lat 2>/dev/null | wc -l)" -ge "$i" ]; do
    sleep 0.02
  done
  echo $(( ($(date +%s%N) - t0) / 1000000 )) >>lat.txt
done
awk '/VmHWM/ { print $2 }' /proc/$floe_pid/status >rss.txt
kill -TERM $floe_pid
wait $floe_pid || true
sort -n lat.txt | awk -v rss="$(cat rss.txt)" '{ v[NR] = $1 } END {
  p50 = v[int((NR + 1) * 0.50)]; p99 = v[int((NR - 1) * 0.99) + 1];
  printf "kafka latency: %d samples, produce -> visible in a scan, triggering_frequency_seconds 1: p50 %d ms, p99 %d ms, max %d ms; consumer peak RSS %d MB\n", NR, p50, p99, v[NR], rss / 1024 }'
