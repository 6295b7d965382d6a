# Sluice: the commands a new user and CI run.
#   make test         install missing system packages, build, check the new-middleware plugin, run every test,
#                     then run every example (Examples/)
#   make lint         swift-format lint --strict over every Swift file, with the checked-in .swift-format
#   make format       rewrites the Swift files the way make lint wants them
#   make test-tsan, make test-asan   the suite under ThreadSanitizer / AddressSanitizer
#   make soak         1,000,000 requests through every middleware against nginx: RSS and descriptors stay flat
#                     (SOAK_ARGS="--requests N --concurrency N"; a few minutes, so not part of make test)
#   make fuzz         each libFuzzer target (Tests/Fuzz) for FUZZ_SECONDS (default 60) with ASan and leak checks
#   make demo         the tour of the default pipeline against an embedded mock server (Examples/Tour)
#   make bench        sluice-bench: Sluice beside raw libcurl in C and URLSession, against nginx
#   make bench-peers  the same beside AsyncHTTPClient (Benchmarks/Peers, a package of its own: about 20
#                     minutes to build in release the first time), ratios to C and to AHC
#   make bench-cache  SluiceCache over SQLite, memory and Redis beside Python's requests-cache: hit latency, miss + store rate
#   make bench-middleware  each middleware's cost per request without I/O (the Redis rate-limit store's over a redis-server it starts); gzip beside zlib from C
#   make bench-instructions  the same clients under callgrind: instructions per request, then each
#                     middleware of the default stack alone in the client (--only NAME)
#   make bench-micro  the chain's own cost: ns per middleware hop (release build);
#                     ARGS=--instructions counts instructions per hop under callgrind instead
#   make bench-resilience  hedging against a slow-tail server (p50, p99, extra requests) and the
#                     circuit breaker against a failing one (calls sent, when calls fail fast)
SHELL := /bin/bash

# Debian packages for the C libraries Sluice links (libcurl, zlib, the brotli and zstd decoders, SQLite, libcrypto, hiredis), and iproute2
# for the reachability test's network namespace.
APT_PACKAGES := libcurl4-openssl-dev zlib1g-dev libbrotli-dev libzstd-dev libsqlite3-dev libssl-dev libhiredis-dev iproute2 curl
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: deps build lint format docs test test-tsan test-asan fuzz soak demo bench bench-peers bench-cache bench-middleware bench-instructions bench-micro bench-resilience clean

deps:
	@command -v swift >/dev/null || { echo "error: swift is not on PATH (Swift 6 toolchain required)"; exit 1; }
	@.ci/vendor-mirrors . Examples/FirstHour Examples/OpenAPIClient Benchmarks
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$package" 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

# Every trait on: the integrations (SluiceHTTPTypes, SluiceOpenAPI, …) are built and tested here.
# .ci/vendor-mirrors points SwiftPM at ../shared/vendor for their packages when that folder exists.
TRAITS := --enable-all-traits

build: deps
	swift build $(TRAITS)

# Every Swift file of the repo, the benchmarks' included (the toolchain's swift-format; .swift-format
# says how: 4 spaces, 160 columns, and the house's one-line `;` and `let a = 1, b = 2` allowed).
SWIFT_FORMAT_PATHS := Package.swift Sources Plugins Examples Tests/Support Tests/Tools Tests/Fuzz/Driver \
  $(wildcard Tests/Sluice*Tests) Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Peers/Package.swift Benchmarks/Peers/Sources

lint:
	@command -v swift-format >/dev/null || { echo "error: swift-format is not on PATH (it comes with the Swift 6 toolchain)"; exit 1; }
	swift-format lint --strict --recursive $(SWIFT_FORMAT_PATHS)

format:
	swift-format format --in-place --recursive $(SWIFT_FORMAT_PATHS)

# One DocC archive per library product in .build/docs/archives; any DocC warning fails it.
docs: deps
	.ci/build-docs

# The interop servers run for the length of the test run, on free loopback ports, and are
# stopped however the run ends.
# The example programs: each checks what it shows and exits non-zero when a claim does not hold.
EXAMPLES := sluice-quickstart sluice-tour sluice-example-custom-pipeline sluice-example-in-house sluice-example-debug-logging

# The generated-client package (Examples/OpenAPIClient): swift-openapi-generator is its dependency
# alone, never the root package's.
OPENAPI_CLIENT := --package-path Examples/OpenAPIClient --scratch-path .build/openapi-client

# At most this many tests at once (Swift Testing's own limit). Unlimited, all 800 start together on
# two cores: for the first 15-20 s no test gets a thread back, and every test that bounds how long
# something takes measures the scheduler instead. 24 keeps the run as short (about 70 s).
TEST_WIDTH ?= 24
# A run that has not ended after this many seconds (it takes about 70) is stopped by .ci/watchdog,
# which prints the tests still running and each thread's stack as the log's last lines.
TEST_LIMIT ?= 900

test: deps
	swift build $(TRAITS) --build-tests
	.ci/check-snippets
	.ci/check-readme-samples
	.ci/check-doc-comments
	.ci/check-caller-numbers
	@for example in $(EXAMPLES); do swift build $(TRAITS) --product "$$example" || exit 1; done
	.ci/check-new-middleware
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) Tests/Servers/with-servers.sh .ci/watchdog $(TEST_LIMIT) swift test $(TRAITS)
	@echo "== the tests that measure latency, alone (Tests/Support/TestPhase.swift)"
	SLUICE_TEST_PHASE=serial .ci/watchdog 300 swift test $(TRAITS) --skip-build --no-parallel --filter 'ConcurrencyLimitConvergenceTests|HedgingSlowTailTests'
	@bin=$$(swift build --show-bin-path); for example in $(EXAMPLES); do \
	  echo "== $$example"; "$$bin/$$example" > /dev/null || { echo "error: the example $$example failed"; exit 1; }; \
	done
	@echo "== FirstHour and OpenAPIClient (packages of their own, depending on Sluice by path, against httpbin)"
	swift build --package-path Examples/FirstHour --scratch-path .build/first-hour
	swift build $(OPENAPI_CLIENT) --build-tests
	Tests/Servers/with-servers.sh sh -c '.build/first-hour/debug/FirstHour "$$SLUICE_HTTPBIN_URL" \
	  && swift test $(OPENAPI_CLIENT) --skip-build && .build/openapi-client/debug/OpenAPIClient "$$SLUICE_HTTPBIN_URL"'

# The whole suite under ThreadSanitizer or AddressSanitizer, in build folders of their own
# (.build/tsan, .build/asan). The TSan run is serial (--no-parallel): at TSan's 5-15x slowdown,
# 450 tests at once on two cores starve the timing tests. Tests/tsan.supp says what it ignores.
test-tsan: deps
	swift build $(TRAITS) --build-tests --sanitize=thread --scratch-path .build/tsan
	TSAN_OPTIONS="suppressions=$(CURDIR)/Tests/tsan.supp $${TSAN_OPTIONS:-}" SLUICE_TEST_TIME_SCALE=5 \
	  Tests/Servers/with-servers.sh swift test $(TRAITS) --skip-build --no-parallel --sanitize=thread --scratch-path .build/tsan

test-asan: deps
	swift build $(TRAITS) --build-tests --sanitize=address --scratch-path .build/asan
	ASAN_OPTIONS="detect_leaks=0 $${ASAN_OPTIONS:-}" SLUICE_TEST_TIME_SCALE=3 SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) Tests/Servers/with-servers.sh \
	  swift test $(TRAITS) --skip-build --sanitize=address --scratch-path .build/asan

# libFuzzer over each target of sluice-fuzz (Tests/Fuzz/fuzz.sh): FUZZ_SECONDS per target,
# FUZZ_TARGETS to pick some. Crashes, leaks, and inputs slower than 1 s fail the run.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) Tests/Fuzz/fuzz.sh

# The benchmarks and the soak run are a package of their own (Benchmarks/), built in release.
BENCH_PACKAGE := --package-path Benchmarks
BENCH_BIN = Benchmarks/.build/release

# nginx on a free port for the length of the run; exits non-zero when the soak's checks fail.
soak: deps
	swift build -c release $(BENCH_PACKAGE) --product sluice-soak || swift build -c release $(BENCH_PACKAGE) --product sluice-soak  # a second try: SwiftPM can miss files new in the root package
	@Tests/Servers/with-servers.sh --nginx-only sh -c '$(BENCH_BIN)/sluice-soak "$$SLUICE_NGINX_URL" "$$@"' sh $(SOAK_ARGS)

demo: deps
	swift build $(TRAITS) --product sluice-tour
	@"$$(swift build --show-bin-path)/sluice-tour"

# nginx on a free port for the length of the run. ARGS go to sluice-bench (--json, --rounds N, …).
bench: deps
	swift build -c release $(BENCH_PACKAGE) --product sluice-bench || swift build -c release $(BENCH_PACKAGE) --product sluice-bench  # a second try: SwiftPM can miss files new in the root package
	@Tests/Servers/with-servers.sh --nginx-only sh -c '$(BENCH_BIN)/sluice-bench "$$SLUICE_NGINX_URL" "$$@"' sh $(ARGS)

# AsyncHTTPClient, the peer, beside libcurl from C and Sluice's clients in the same rounds and the
# same nginx: sluice-bench runs Benchmarks/Peers' sluice-bench-ahc in a process of its own for its row.
PEERS_PACKAGE := --package-path Benchmarks/Peers
PEER_CLIENTS := libcurl-c,libcurl-c-keep,ahc,curl-transport,curl-transport-pool,client-bare,client
bench-peers: deps
	@.ci/vendor-mirrors Benchmarks/Peers
	swift build -c release $(PEERS_PACKAGE) --product sluice-bench-ahc
	swift build -c release $(BENCH_PACKAGE) --product sluice-bench || swift build -c release $(BENCH_PACKAGE) --product sluice-bench  # a second try: SwiftPM can miss files new in the root package
	@peer=$$(swift build -c release $(PEERS_PACKAGE) --show-bin-path)/sluice-bench-ahc; Tests/Servers/with-servers.sh --nginx-only \
	  sh -c '$(BENCH_BIN)/sluice-bench "$$SLUICE_NGINX_URL" --clients $(PEER_CLIENTS) --peer "$$0" --tls-url "$$SLUICE_NGINX_TLS_URL" --tls-ca "$$SLUICE_NGINX_CA" "$$@"' "$$peer" $(ARGS)

# SluiceCache over SQLite, memory and Redis beside Python's requests-cache (SQLite), against the
# same nginx (httpbin is started too, as with-servers.sh starts redis with it).
bench-cache: deps
	swift build -c release $(BENCH_PACKAGE) --product sluice-bench || swift build -c release $(BENCH_PACKAGE) --product sluice-bench  # a second try: SwiftPM can miss files new in the root package
	@python=$$(Tests/Servers/httpbin.sh venv); Tests/Servers/with-servers.sh \
	  sh -c '$(BENCH_BIN)/sluice-bench "$$SLUICE_NGINX_URL" --cache --python "$$0" --redis "$$SLUICE_REDIS_HOST:$$SLUICE_REDIS_PORT" "$$@"' "$$python" $(ARGS)

# What each middleware costs per request without I/O, and SluiceGzip beside zlib from C.
bench-middleware: deps
	swift build -c release $(BENCH_PACKAGE) --product sluice-bench || swift build -c release $(BENCH_PACKAGE) --product sluice-bench  # a second try: SwiftPM can miss files new in the root package
	@dir=$$(mktemp -d "$${TMPDIR:-/tmp}/sluice-bench-redis.XXXXXX"); trap 'Tests/Servers/redis.sh down "$$dir"; rm -rf "$$dir"' EXIT; \
	  Tests/Servers/redis.sh up "$$dir" && . "$$dir/redis.env" && $(BENCH_BIN)/sluice-bench --middleware $(ARGS)

# The same clients under callgrind: instructions per request, which machine noise cannot blur.
bench-instructions: deps
	@dpkg-query -W -f='$${Status}' valgrind 2>/dev/null | grep -q "install ok installed" || { \
	  echo "Installing valgrind"; $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends valgrind; }
	swift build -c release $(BENCH_PACKAGE) --product sluice-bench || swift build -c release $(BENCH_PACKAGE) --product sluice-bench  # a second try: SwiftPM can miss files new in the root package
	@Tests/Servers/with-servers.sh --nginx-only sh -c 'Benchmarks/bench-instructions.sh "$$SLUICE_NGINX_URL" $(BENCH_BIN)/sluice-bench'

# Hedging against a slow-tail server and the circuit breaker against a failing one (MockWebServer).
bench-resilience: deps
	swift build -c release $(BENCH_PACKAGE) --product sluice-resilience-bench || swift build -c release $(BENCH_PACKAGE) --product sluice-resilience-bench  # a second try: SwiftPM can miss files new in the root package
	$(BENCH_BIN)/sluice-resilience-bench $(ARGS)

bench-micro: deps
	swift build -c release $(BENCH_PACKAGE) --product sluice-microbench || swift build -c release $(BENCH_PACKAGE) --product sluice-microbench  # a second try: SwiftPM can miss files new in the root package
	$(BENCH_BIN)/sluice-microbench $(ARGS)

clean:
	swift package clean
	swift package $(BENCH_PACKAGE) clean
