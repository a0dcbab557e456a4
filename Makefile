# lagmon — build, demo, test, bench. `make demo` and `make test` work on a fresh Debian 12
# machine with the Swift toolchain: scripts/install-deps installs whatever else is missing.
SWIFT ?= swift
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path)
DEBUG_BIN = $(shell $(SWIFT) build --show-bin-path)

.PHONY: all deps build demo test test-loaded bench lint man check-man clean fuzz fuzz-smoke hostile-soak

all: build

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build -c release

# Runs the bundled demo twice: the naive image list (decoding on the main thread) and the
# async one (decoding on a keep-alive worker), so the difference shows.
demo: build
	@scripts/demo "$(RELEASE_BIN)"

# Each step's output is also kept in .build/test-*.log (scripts/test-step): on failure the
# failing tests and their issue lines are printed last, where a truncated CI log still shows them.
# Pure unit tests run in parallel; tests that run real processes run one at a time, so their
# wall-clock truths (stall lengths, CPU shares) do not compete for the two cores.
# The Swift fixtures (an async-main program, a SwiftNIO server and a Hummingbird app) are a package
# of their own, Tests/Fixtures/swift-servers, built here once per run. Its first (clean) debug
# build, SwiftNIO included, took 10 min 19 s of wall time (133 s user CPU) on the shared 2-core VM
# at load 45-68; on an idle 2-core machine expect roughly the CPU time, 2-3 minutes. Hummingbird
# (no traits) adds to a clean build, measured back to back at load 8-11: 258 s -> 416 s wall
# (+2 min 38 s), 118 s -> 238 s user+system CPU (+2 min).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) build --package-path Tests/Fixtures/swift-servers
	@scripts/test-step unit .build/test-unit.log \
		$(SWIFT) test --skip-build --filter "LagmonCoreTests|LagmonMetricsTests"
	@LAGMON_BIN_DIR="$(DEBUG_BIN)" scripts/test-step process .build/test-process.log \
		$(SWIFT) test --skip-build --no-parallel --filter "LagmonLinuxTests|LagmonSymbolsTests|LagmonIntegrationTests"

# The process tests again with a busy loop on every core beside them (scripts/test-loaded): a
# shared CI machine. They assert truths the workloads log, with margins that survive the load.
test-loaded: deps
	$(SWIFT) build --build-tests
	$(SWIFT) build --package-path Tests/Fixtures/swift-servers
	@scripts/test-loaded "$(DEBUG_BIN)"

# scripts/bench measures and writes docs/benchmarks.json (numbers only); scripts/bench-render turns
# it into the tables of docs/benchmarks.md. scripts/bench also runs the probe's micro-benchmarks
# (Benchmarks/Micro, a package of its own on ordo-one/benchmark, which its plugin builds on first use).
bench: build
	@scripts/install-deps --bench
	@scripts/bench "$(RELEASE_BIN)" docs/benchmarks.json
	@scripts/bench-render docs/benchmarks.json docs/benchmarks.md
	@scripts/bench-metrics "$(RELEASE_BIN)" docs/benchmarks.md
	@scripts/bench-pyspy "$(RELEASE_BIN)"

# libFuzzer harnesses of the channel reader and the report reader (Fuzz/, built with the fuzzer
# and address sanitizers; scripts/fuzz). `fuzz` runs each for FUZZ_SECONDS, keeping what it finds
# in .fuzz/; `fuzz-smoke` runs each for 20 s from the committed corpus (CI).
FUZZ_SECONDS ?= 600
fuzz:
	@scripts/fuzz run $(FUZZ_SECONDS)

fuzz-smoke:
	@scripts/fuzz smoke 20

# The live channel fuzzer against a running lagmon (scripts/hostile-soak): runs with random seeds
# until they used HOSTILE_CPU_MINUTES of CPU, then prints aborts, hangs, foreign ptraces, missing
# reports and wrong statuses. `make test` runs four seeds (ChannelHostilityTests).
HOSTILE_CPU_MINUTES ?= 30
hostile-soak: deps
	$(SWIFT) build
	@scripts/hostile-soak "$(DEBUG_BIN)" $(HOSTILE_CPU_MINUTES)

# docs/man/lagmon.1, generated from the command definitions (swift-argument-parser's plugin);
# CI checks the committed page matches.
man:
	@scripts/man

check-man:
	@scripts/man --check

# Every Python file of the repository, found by name or by its `#!` line (scripts/bench and
# friends have no .py), linted by ruff with its default rules (scripts/install-deps installs it).
PYTHON_FILES = $(shell { git ls-files '*.py'; git grep -lI '^\#!.*python'; } | sort -u)
RUFF = $(shell python3 -m ruff --version >/dev/null 2>&1 && echo python3 -m ruff || echo ruff)

lint: deps
	$(SWIFT) format lint --recursive --strict Sources Tests Benchmarks Fuzz/Sources Package.swift Fuzz/Package.swift
	$(RUFF) check $(PYTHON_FILES)

clean:
	rm -rf .build Benchmarks/Micro/.build Tests/Fixtures/swift-servers/.build
