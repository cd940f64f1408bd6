#!/usr/bin/env python3
"""Writes examples/sample.jsonl: 300 deterministic rows for the demo, with every
column type of examples/sample.schema.sql, nested values, nulls, extremes and
non-ASCII text, in both the Iceberg JSON forms and natural JSON forms."""
import json
import random
import sys

rng = random.Random(20261130)
words = ["alpha", "beta", "gamma", "delta", "épsilon", "ζeta", "東京", "naïve", "emoji 🎉", "tab\there",
         "quote \"q\"", "back\\slash", ""]
rows = []
for i in range(300):
    r = {"id": i + 1}
    def maybe(key, value, p=0.1):
        if rng.random() >= p:
            r[key] = value
        elif rng.random() < 0.5:
            r[key] = None  # explicit null; otherwise the key is missing
    maybe("name", rng.choice(words) + f" {i}")
    maybe("active", rng.random() < 0.5)
    maybe("qty", rng.choice([0, 1, -1, 2147483647, -2147483648, rng.randint(-1000, 1000)]))
    cents = rng.randint(-10**9, 10**9)
    # decimals as exact strings (Iceberg form) or as JSON numbers (natural form)
    maybe("price", f"{cents // 100 if cents >= 0 else -((-cents) // 100)}.{abs(cents) % 100:02d}"
          if i % 2 else round(rng.uniform(-1000, 1000), 2))
    maybe("score", rng.choice([0.1, -0.0, 1e300, 5e-324, rng.uniform(-1e6, 1e6), "NaN", "Infinity", "-Infinity"]))
    maybe("ratio", rng.choice([0.5, 3.4028235e38, 1.17549435e-38, rng.uniform(-1, 1)]))
    y, m, d = rng.randint(1900, 2100), rng.randint(1, 12), rng.randint(1, 28)
    maybe("born", f"{y:04d}-{m:02d}-{d:02d}")
    hh, mm, ss, us = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999)
    maybe("wake", f"{hh:02d}:{mm:02d}:{ss:02d}.{us:06d}" if i % 3 else f"{hh:02d}:{mm:02d}")
    sep = "T" if i % 2 else " "
    maybe("created", f"{y:04d}-{m:02d}-{d:02d}{sep}{hh:02d}:{mm:02d}:{ss:02d}.{us:06d}")
    zone = rng.choice(["Z", "+00:00", "+05:30", "-08:00"])
    maybe("updated", f"2024-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{us // 1000:03d}{zone}")
    maybe("uid", "%08x-%04x-%04x-%04x-%012x" % (rng.getrandbits(32), rng.getrandbits(16),
                                              rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48)))
    maybe("tags", [rng.choice(words) if rng.random() > 0.1 else None for _ in range(rng.randint(0, 4))])
    maybe("loc", {"lat": round(rng.uniform(-90, 90), 6), "lon": round(rng.uniform(-180, 180), 6)}
          if rng.random() > 0.1 else {"lat": None})
    n = rng.randint(0, 3)
    keys = [f"k{j}" for j in range(n)]
    vals = [rng.randint(-5, 5) if rng.random() > 0.2 else None for _ in range(n)]
    maybe("attrs", {"keys": keys, "values": vals} if i % 2 else dict(zip(keys, vals)))
    maybe("payload", "".join("%02x" % rng.getrandbits(8) for _ in range(rng.randint(0, 8))))
    rows.append(r)
with open(sys.argv[1] if len(sys.argv) > 1 else "sample.jsonl", "w", encoding="utf-8") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
