#!/usr/bin/env bash
# Instructions per request for each sluice-bench client, counted by callgrind: steady where req/s
# swing with the machine. Runs the benchmark (debug info stripped: valgrind 3.19 cannot read
# Swift 6.3's) at two request counts and divides the difference.
#   Benchmarks/bench-instructions.sh NGINX_URL [SLUICE_BENCH_BINARY]
# SLUICE_INSTRUCTION_CLIENTS="a b" picks the clients of the first table (default: the C reference,
# the transport, the pipeline on one event thread, the bare client, a memory-cache hit and the
# default stack). SLUICE_INSTRUCTION_MIDDLEWARE="gzip cache" picks the rows of the second table,
# each middleware of the default stack alone in the client (--only NAME); "" skips it. Beside each,
# libcurl's own cost of the bytes it adds to the head: C sending that very head (--as-sent), less
# C sending the builder's defaults' head, so what is left is Sluice's own. SLUICE_INSTRUCTION_LENGTH=4
# runs the longer of the two counts four times as long: steadier rows at four times the wait (at
# the default, 1, a row moves by up to ±1,500 between sittings).
# SLUICE_INSTRUCTION_SCENARIOS="sequential" runs one scenario instead of both (sequential
# concurrent16): half the wait.
set -euo pipefail
url=${1:?nginx base URL} bin=${2:-Benchmarks/.build/release/sluice-bench}
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-instructions.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$bin" "$work/sluice-bench"
strip --strip-debug "$work/sluice-bench"

# instructions SCENARIO SCALE ARGS…: callgrind's total for one run
instructions() {
  local scenario=$1 scale=$2
  shift 2
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/sluice-bench" "$url" \
    --scenarios "$scenario" --rounds 1 --event-threads 1 --scale "$scale" "$@" 2>&1 | sed -n 's/.*Collected : //p'
}
# requests BASE SCALE: what sluice-bench sends for one client in one round, warm-up included
requests() { python3 -c "c = int($1 * $2); print(c + max(16, c // 20))"; }
# per_request SCENARIO ARGS…: instructions per request, from two request counts
per_request() {
  local name=$1 base small large
  shift
  case $name in
    sequential) base=4000 small=0.05 large=$(python3 -c "print(0.3 * ${SLUICE_INSTRUCTION_LENGTH:-1})") ;;
    concurrent16) base=16000 small=0.0125 large=$(python3 -c "print(0.075 * ${SLUICE_INSTRUCTION_LENGTH:-1})") ;;
  esac
  local a b na nb
  a=$(instructions "$name" "$small" "$@") b=$(instructions "$name" "$large" "$@")
  na=$(requests "$base" "$small") nb=$(requests "$base" "$large")
  echo $(((b - a) / (nb - na)))
}

scenarios=${SLUICE_INSTRUCTION_SCENARIOS:-sequential concurrent16}
printf '| scenario | client | instructions per request |\n|---|---|---:|\n'
for name in $scenarios; do
  for client in ${SLUICE_INSTRUCTION_CLIENTS:-libcurl-c-keep curl-transport pipeline-1thread client-bare client-cache-hit client}; do
    printf '| %s | %s | %s |\n' "$name" "$client" "$(per_request "$name" --clients "$client")"
  done
  # C with the transport's head (its User-Agent): what libcurl alone costs for the same bytes.
  printf '| %s | libcurl-c-keep, the head curl-transport sends | %s |\n' "$name" "$(per_request "$name" --clients libcurl-c-keep --as-sent curl-transport)"
done

# Each middleware alone: the client row with it and the builder's defaults (the redirect
# follower), minus the client with the redirect follower alone; the follower itself over the
# client with nothing at all (--only none).
middleware=${SLUICE_INSTRUCTION_MIDDLEWARE-hud logging headers urlencoding cache retry reachability gzip signing}
[ -n "$middleware" ] || exit 0
echo
printf '| scenario | middleware alone | instructions per request | over the builder'"'"'s defaults | libcurl'"'"'s share (C, same head) | Sluice'"'"'s own |\n|---|---|---:|---:|---:|---:|\n'
for name in $scenarios; do
  none=$(per_request "$name" --clients client --only none)
  defaults=$(per_request "$name" --clients client --only redirects)
  cdefaults=$(per_request "$name" --clients libcurl-c-keep --as-sent client --only redirects)
  printf '| %s | (nothing) | %s | | | |\n' "$name" "$none"
  printf '| %s | redirects (the builder'"'"'s defaults) | %s | +%s over nothing | | |\n' "$name" "$defaults" "$((defaults - none))"
  for one in $middleware; do
    n=$(per_request "$name" --clients client --only "$one")
    c=$(per_request "$name" --clients libcurl-c-keep --as-sent client --only "$one")
    printf '| %s | %s | %s | %+d | %+d | %+d |\n' "$name" "$one" "$n" "$((n - defaults))" "$((c - cdefaults))" "$((n - defaults - c + cdefaults))"
  done
done
