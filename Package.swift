// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "lagmon",
    products: [
        .executable(name: "lagmon", targets: ["lagmon"]),
        .executable(name: "lagmon-demo", targets: ["lagmon-demo"]),
        .library(name: "LagmonAgent", targets: ["LagmonAgent"]),
        // The LD_PRELOAD probe: a C-only shared object loaded into targets.
        .library(name: "LagmonPreload", type: .dynamic, targets: ["CLagmonPreload"]),
        // The probe's C hot path, for the micro-benchmarks (Benchmarks/Micro, a package of its own).
        .library(name: "CLagmonProbe", targets: ["CLagmonProbe"]),
        // The libraries, for the fuzzers (Fuzz/, a package of its own).
        .library(name: "LagmonCore", targets: ["LagmonCore"]),
        .library(name: "LagmonLinux", targets: ["LagmonLinux"]),
        // A library the stack fixture dlopens and then replaces on disk (tests only).
        .library(
            name: "lagmon-stack-fixture-library", type: .dynamic, targets: ["lagmon-stack-fixture-library"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .executableTarget(
            name: "lagmon",
            dependencies: [
                "LagmonCore", "LagmonLinux", "LagmonMetrics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .target(
            name: "LagmonCore",
            dependencies: [.product(name: "Histogram", package: "hdrhistogram-swift")]),
        .target(
            name: "LagmonLinux",
            dependencies: ["LagmonCore", "LagmonSymbols", "CLagmonShared", "CLagmonLinux", "CLagmonUnwind", "CZlib"]),
        // ELF, symbol tables, the external symbolizer, demangling, the files of a target (opened
        // below its root with openat2, CLagmonLinux): no ptrace, no unwinding.
        .target(name: "LagmonSymbols", dependencies: ["LagmonCore", "CLagmonLinux"]),
        // Prometheus metrics: swift-prometheus's registry and text exposition over LagmonCore values.
        .target(
            name: "LagmonMetrics",
            dependencies: ["LagmonCore", .product(name: "Prometheus", package: "swift-prometheus")]),
        .target(name: "LagmonAgent", dependencies: ["CLagmonProbe"]),
        .target(name: "CLagmonShared"),
        .target(name: "CLagmonProbe", dependencies: ["CLagmonShared"], linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CLagmonLinux"),
        .systemLibrary(name: "CLibunwind"),
        .systemLibrary(name: "CZlib"),
        .target(
            name: "CLagmonUnwind", dependencies: ["CLibunwind"],
            linkerSettings: [
                .linkedLibrary("unwind-generic"), .linkedLibrary("unwind"),
                .linkedLibrary("lzma"),
            ]),
        .target(
            name: "CLagmonPreload", dependencies: ["CLagmonProbe"],
            // C only, loaded into arbitrary processes: no Swift runtime registration object, and
            // the stdlib linked "statically", so nothing of it is pulled in and libswiftCore.so
            // is not loaded into non-Swift targets (nor a second runtime into static Swift ones).
            linkerSettings: [.unsafeFlags(["-nostartfiles", "-static-stdlib"])]),
        .executableTarget(
            name: "lagmon-demo",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "lagmon-agent-fixture", dependencies: ["LagmonAgent"], path: "Tests/Fixtures/lagmon-agent-fixture"),
        // A Swift program pumping its run loop with CFRunLoopRunInMode(default, 0, true) that
        // computes for 400 ms between two pumps.
        .executableTarget(name: "lagmon-pumped-fixture", path: "Tests/Fixtures/lagmon-pumped-fixture"),
        // Plain C epoll loops that stall on purpose (wait-call probe tests and the bench).
        .executableTarget(name: "lagmon-loop-fixture", path: "Tests/Fixtures/lagmon-loop-fixture"),
        // A C epoll loop making every blocking call StrictMode counts, on and off its thread.
        .executableTarget(name: "lagmon-strict-fixture", path: "Tests/Fixtures/lagmon-strict-fixture"),
        // A target that writes hostile data into the channel (channel validation tests).
        .executableTarget(
            name: "lagmon-hostile-fixture", dependencies: ["CLagmonShared"],
            path: "Tests/Fixtures/lagmon-hostile-fixture"),
        // The epoll loop of a periodic timerfd the C fixtures tick in between their stalls.
        .target(name: "LagmonFixtureLoop", path: "Tests/Fixtures/lagmon-fixture-loop"),
        // A C epoll loop stalling in a dlopened library replaced on disk, or in the vDSO.
        .executableTarget(
            name: "lagmon-stack-fixture", dependencies: ["LagmonFixtureLoop"],
            path: "Tests/Fixtures/lagmon-stack-fixture",
            linkerSettings: [.linkedLibrary("dl")]),
        // A C epoll loop waiting for a lock (pthread mutexes, rwlocks, a condition variable) a spinning worker holds.
        .executableTarget(
            name: "lagmon-lock-fixture", dependencies: ["LagmonFixtureLoop"], path: "Tests/Fixtures/lagmon-lock-fixture"
        ),
        // A C epoll loop in uninterruptible sleep: a vfork parent, a write to a frozen filesystem.
        .executableTarget(
            name: "lagmon-io-fixture", dependencies: ["LagmonFixtureLoop"], path: "Tests/Fixtures/lagmon-io-fixture"),
        .executableTarget(name: "lagmon-wait-fixture", path: "Tests/Fixtures/lagmon-wait-fixture"),
        // A Swift poll loop waiting for a Synchronization.Mutex a spinning thread holds.
        .executableTarget(name: "lagmon-swift-lock-fixture", path: "Tests/Fixtures/lagmon-swift-lock-fixture"),
        .target(
            name: "lagmon-stack-fixture-library", path: "Tests/Fixtures/lagmon-stack-fixture-library",
            // C only, like the preload probe: no Swift runtime in the library.
            linkerSettings: [.unsafeFlags(["-nostartfiles", "-static-stdlib"])]),
        .executableTarget(name: "lagmon-hotloop", path: "Benchmarks/lagmon-hotloop"),
        // The kernel's floor under the pause per sample and the per-thread CPU reader (C, for the bench).
        .executableTarget(name: "lagmon-floor", path: "Benchmarks/lagmon-floor"),
        .executableTarget(
            name: "lagmon-bench", dependencies: ["LagmonLinux", "LagmonSymbols", "LagmonCore"],
            path: "Benchmarks/lagmon-bench"),
        // What the process tests share: where the built binaries are, running a tool, polling.
        .target(name: "LagmonTestSupport", path: "Tests/LagmonTestSupport"),
        .testTarget(name: "LagmonCoreTests", dependencies: ["LagmonCore"]),
        .testTarget(
            name: "LagmonLinuxTests",
            dependencies: ["LagmonLinux", "LagmonSymbols", "CLagmonShared", "CLagmonProbe", "LagmonTestSupport"]),
        .testTarget(name: "LagmonSymbolsTests", dependencies: ["LagmonSymbols", "LagmonLinux", "LagmonTestSupport"]),
        .testTarget(name: "LagmonIntegrationTests", dependencies: ["LagmonCore", "LagmonTestSupport"]),
        .testTarget(name: "LagmonMetricsTests", dependencies: ["LagmonMetrics", "LagmonCore"]),
    ]
)
