# lagmon — build, demo, test, bench. `make demo` and `make test` work on a fresh Debian 12
# machine with the Swift toolchain: scripts/install-deps installs whatever else is missing.
SWIFT ?= swift
# Release builds link the Swift runtime into the binary, so it runs where no Swift is installed
# (docs/install.md).
RELEASE_FLAGS = -c release --static-swift-stdlib
RELEASE_BIN = $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)
DEBUG_BIN = $(shell $(SWIFT) build --show-bin-path)
# The version is kept in one place, the Swift source (reports and `lagmon --version` show it).
VERSION = $(shell sed -n 's/^ *public static let current = "\(.*\)"$$/\1/p' Sources/LagmonCore/Model/Session/LagmonVersion.swift)
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps build build-shipped demo test test-loaded bench lint man check-man clean fuzz fuzz-smoke install uninstall \
	package test-install hostile-soak

all: build

deps:
	@scripts/install-deps --test

build:
	@scripts/install-deps --demo
	$(SWIFT) build $(RELEASE_FLAGS)

# Only what is installed and packaged: lagmon and its probe (not the demo, fixtures, benchmarks).
build-shipped:
	@scripts/install-deps --package
	$(SWIFT) build $(RELEASE_FLAGS) --product lagmon
	$(SWIFT) build $(RELEASE_FLAGS) --product LagmonPreload

# lagmon, its probe, man page, shell completions, systemd unit and docs under $(DESTDIR)$(PREFIX);
# `uninstall` removes exactly those (scripts/install, docs/install.md).
install: build-shipped
	@scripts/install install "$(RELEASE_BIN)" "$(PREFIX)" "$(DESTDIR)"

uninstall:
	@scripts/install uninstall "$(PREFIX)" "$(DESTDIR)"

# .build/dist/: lagmon_$(VERSION)_amd64.deb (and its -dbgsym), the relocatable
# lagmon-$(VERSION)-linux-x86_64.tar.gz, SHA256SUMS (scripts/package).
package: build-shipped
	@scripts/package "$(RELEASE_BIN)" "$(VERSION)" .build/dist

# The packages installed and run on a fresh Debian 12 root without Swift (root; debootstrap, kept
# under .build/test-install/ between runs; scripts/test-install).
test-install: package
	@scripts/install-deps --test
	@scripts/test-install .build/dist "$(VERSION)"

# Runs the bundled demo twice: the naive image list (decoding on the main thread) and the
# async one (decoding on a keep-alive worker), so the difference shows.
demo: build
	@scripts/demo "$(RELEASE_BIN)"

# Each step's output is also kept in .build/test-*.log (scripts/test-step): on failure the
# failing tests and their issue lines are printed last, where a truncated CI log still shows them.
# Pure unit tests run in parallel; tests that run real processes run one at a time, so their
# wall-clock truths (stall lengths, CPU shares) do not compete for the two cores.
# The Swift fixtures (an async-main program, a SwiftNIO server and a Hummingbird app) are a package
# of their own, Tests/Fixtures/swift-servers, built here once per run; its first clean build
# compiles SwiftNIO and Hummingbird and takes minutes (docs/notes/build-times.md).
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

# scripts/bench (the package scripts/lagmon_bench) measures every row into docs/benchmarks.json
# (numbers only), then renders that into the tables of docs/benchmarks.md. Measuring also runs the
# probe's micro-benchmarks (Benchmarks/Micro, a package of its own on ordo-one/benchmark, which its
# plugin builds on first use). LAGMON_BENCH_ONLY=row,row measures only those rows. The start-up row
# compares the release binary with one that loads the toolchain's Swift libraries, built aside in
# .build/dynamic.
bench: build
	@scripts/install-deps --bench
	$(SWIFT) build -c release --scratch-path .build/dynamic --product lagmon
	@LAGMON_BENCH_DYNAMIC=.build/dynamic/release/lagmon scripts/bench measure "$(RELEASE_BIN)" docs/benchmarks.json
	@scripts/bench render docs/benchmarks.json docs/benchmarks.md

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

# scripts/check-layers: inside each module, a folder uses only the folders below it in the
# pipeline (docs/design.md); its self-test first checks that it catches an upward use.
# scripts/check-doc-links: every relative link between the Markdown pages resolves, anchors
# included, and no page is over 50 KB; its self-test first checks that it catches each.
# Every Python file of the repository, found by name or by its `#!` line (scripts/bench and
# scripts/soak-target have no .py), linted by ruff with its default rules (scripts/install-deps installs it).
PYTHON_FILES = $(shell { git ls-files '*.py'; git grep -lI '^\#!.*python'; } | sort -u)
RUFF = $(shell python3 -m ruff --version >/dev/null 2>&1 && echo python3 -m ruff || echo ruff)

lint: deps
	$(SWIFT) format lint --recursive --strict Sources Tests Benchmarks Fuzz/Sources Package.swift Fuzz/Package.swift
	$(RUFF) check $(PYTHON_FILES)
	scripts/check-layers --self-test
	scripts/check-layers
	scripts/check-doc-links --self-test
	scripts/check-doc-links

clean:
	rm -rf .build Benchmarks/Micro/.build Tests/Fixtures/swift-servers/.build
