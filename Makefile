# lagmon — build, demo, test, bench. `make demo` and `make test` work on a fresh Debian 12
# machine with the Swift toolchain: scripts/install-deps installs whatever else is missing.
SWIFT ?= swift
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path)
DEBUG_BIN = $(shell $(SWIFT) build --show-bin-path)

.PHONY: all deps build demo test test-loaded bench lint clean

all: build

deps:
	@scripts/install-deps

build: deps
	$(SWIFT) build -c release

# Runs the bundled demo twice: the naive image list (decoding on the main thread) and the
# async one (decoding on a keep-alive worker), so the difference shows.
demo: build
	@scripts/demo "$(RELEASE_BIN)"

# Pure unit tests run in parallel; tests that run real processes run one at a time, so their
# wall-clock truths (stall lengths, CPU shares) do not compete for the two cores.
# The Swift fixtures (an async-main program and a SwiftNIO server) are a package of their own,
# Tests/Fixtures/swift-servers, built here once per run. Its first (clean) debug build, SwiftNIO
# included, took 10 min 19 s of wall time (133 s user CPU) on the shared 2-core VM at load 45-68;
# on an idle 2-core machine expect roughly the CPU time, 2-3 minutes.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) build --package-path Tests/Fixtures/swift-servers
	$(SWIFT) test --skip-build --filter LagmonCoreTests
	LAGMON_BIN_DIR="$(DEBUG_BIN)" $(SWIFT) test --skip-build --no-parallel --filter "LagmonLinuxTests|LagmonSymbolsTests|LagmonIntegrationTests"

# The process tests again with a busy loop on every core beside them (scripts/test-loaded): a
# shared CI machine. They assert truths the workloads log, with margins that survive the load.
test-loaded: deps
	$(SWIFT) build --build-tests
	@scripts/test-loaded "$(DEBUG_BIN)"

# scripts/bench also runs the probe's micro-benchmarks (Benchmarks/Micro, a package of its own on
# ordo-one/benchmark, which its plugin builds on first use).
bench: build
	@scripts/bench "$(RELEASE_BIN)"

lint:
	$(SWIFT) format lint --recursive --strict Sources Tests Benchmarks Package.swift

clean:
	rm -rf .build Benchmarks/Micro/.build Tests/Fixtures/swift-servers/.build
