#!/usr/bin/env bash
# make fuzz: builds sluice-fuzz with libFuzzer, AddressSanitizer (with LeakSanitizer) and coverage
# into .build/fuzz, then fuzzes each target for FUZZ_SECONDS (default 60).
#   FUZZ_SECONDS=N     seconds per target
#   FUZZ_TARGETS="a b" only these targets (names from `sluice-fuzz list`)
# Each target starts from its seed corpus, Tests/Fuzz/Corpus/<target>, and keeps what it finds in
# .build/fuzz/corpus/<target> for the next run. A crash, a leak, an input slower than 1 s or one
# that needs more than 2 GB is a failure: its input is saved under .build/fuzz/artifacts/<target>/,
# and the run goes on to the other targets, then exits 1. Copy a fixed crash input into the seed
# corpus, so `make test` replays it from then on.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-60}
runtime=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/clang
fuzzer=$(ls "$runtime"/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)
if [ -z "$fuzzer" ]; then echo "fuzz: no libclang_rt.fuzzer_no_main in the Swift toolchain ($runtime)" >&2; exit 2; fi

# The program keeps its own main (SwiftPM renames it), so libFuzzer comes in without its main and
# the coverage flags are given by hand: -sanitize=fuzzer would bring a second main.
swift build --scratch-path .build/fuzz --product sluice-fuzz \
  -Xswiftc -sanitize=address \
  -Xswiftc -sanitize-coverage=edge,trace-cmp,indirect-calls,inline-8bit-counters,pc-table \
  -Xcc -DSLUICE_FUZZ -Xlinker "$fuzzer" -Xlinker -lstdc++ 2>&1 | grep -v "Cannot export local symbol" || true
binary=.build/fuzz/debug/sluice-fuzz
[ -x "$binary" ] || { echo "fuzz: the build failed" >&2; exit 2; }

targets=${FUZZ_TARGETS:-$("$binary" list | cut -f1)}
failed=0
summary=()
for target in $targets; do
  corpus=.build/fuzz/corpus/$target artifacts=.build/fuzz/artifacts/$target log=.build/fuzz/$target.log
  mkdir -p "$corpus" "$artifacts"
  echo "== $target: $seconds s"
  # The Swift runtime's own crash backtracer is turned off: libFuzzer and ASan report crashes.
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}" \
  LSAN_OPTIONS="suppressions=$PWD/Tests/Fuzz/lsan.supp:${LSAN_OPTIONS:-}" "$binary" "$target" \
    -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "Tests/Fuzz/Corpus/$target" > "$log" 2>&1
  status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  kept=$(ls "$corpus" | wc -l)
  if [ "$status" -eq 0 ]; then
    result=clean
  else
    failed=1
    result="FAILED ($(grep -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+|ERROR: libFuzzer: [a-z-]+|property broken: .*' "$log" || echo "exit $status"))"
    grep -E "property broken|ERROR|SUMMARY|Test unit written" "$log" | head -8
  fi
  summary+=("$(printf '%-14s %10s runs %7s/s %6s edges %6s corpus  %s' "$target" "${runs:-?}" "${speed:-?}" "${edges:-?}" "$kept" "$result")")
done
echo
echo "sluice-fuzz, $seconds s per target:"
printf '%s\n' "${summary[@]}"
exit "$failed"
