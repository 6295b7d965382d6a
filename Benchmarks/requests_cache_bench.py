"""Python's requests-cache (SQLite backend) against the same nginx, for sluice-bench --cache.

    python requests_cache_bench.py BASE_URL HITS MISSES SQLITE_PATH
prints one JSON object: {"hit_median_us": …, "miss_store_per_s": …}
"""
import json
import statistics
import sys
import time

import requests_cache

base, hits, misses, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
session = requests_cache.CachedSession(path, backend="sqlite")
url = base + "/small.json"
session.get(url)  # prime
timings = []
for _ in range(hits):
    start = time.perf_counter()
    response = session.get(url)
    timings.append(time.perf_counter() - start)
    assert response.from_cache and len(response.content) > 0
start = time.perf_counter()
for index in range(misses):
    response = session.get(f"{url}?n={index}")
    assert not response.from_cache and response.status_code == 200
elapsed = time.perf_counter() - start
print(json.dumps({"hit_median_us": statistics.median(timings) * 1e6, "miss_store_per_s": misses / elapsed}))
