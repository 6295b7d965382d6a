#!/usr/bin/env bash
# Instructions per request for each sluice-bench client, counted by callgrind: steady where req/s
# swing with the machine. Runs the benchmark (debug info stripped: valgrind 3.19 cannot read
# Swift 6.3's) at two request counts and divides the difference.
#   Benchmarks/bench-instructions.sh NGINX_URL [SLUICE_BENCH_BINARY]
# SLUICE_INSTRUCTION_CLIENTS="a b" picks the clients (default: the C reference, the transport, the
# pipeline on one event thread and the full client).
set -euo pipefail
url=${1:?nginx base URL} bin=${2:-Benchmarks/.build/release/sluice-bench}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-instructions.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/sluice-bench"
strip --strip-debug "$work/sluice-bench"

# instructions CLIENT SCENARIO SCALE
instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/sluice-bench" "$url" \
    --clients "$1" --scenarios "$2" --rounds 1 --event-threads 1 --scale "$3" 2>&1 | sed -n 's/.*Collected : //p'
}
# requests BASE SCALE: what sluice-bench sends for one client in one round, warm-up included
requests() { python3 -c "c = int($1 * $2); print(c + max(16, c // 20))"; }

printf '| scenario | client | instructions per request |\n|---|---|---:|\n'
for scenario in sequential:4000:0.05:0.3 concurrent16:16000:0.0125:0.075; do
  IFS=: read -r name base small large <<<"$scenario"
  for client in ${SLUICE_INSTRUCTION_CLIENTS:-libcurl-c-keep curl-transport pipeline-1thread client}; do
    a=$(instructions "$client" "$name" "$small") b=$(instructions "$client" "$name" "$large")
    na=$(requests "$base" "$small") nb=$(requests "$base" "$large")
    printf '| %s | %s | %s |\n' "$name" "$client" "$(( (b - a) / (nb - na) ))"
  done
done
