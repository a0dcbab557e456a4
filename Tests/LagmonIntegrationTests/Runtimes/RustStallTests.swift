import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// A Rust event loop (Tests/Fixtures/rust-loops, std only), built here with rustc in both of its
/// symbol manglings: every stall is found with default flags and blamed on the program's own
/// function — a plain fn, a closure, an async fn's body — never on std or core under it. rustc
/// links with lld by default, so this is also the shared-page layout of docs/symbols.md.
@Suite(.serialized)
struct RustStallTests {
    /// The mangling and the names its closures get.
    struct Mangling: CustomTestStringConvertible, Sendable {
        var name: String
        var flags: [String]
        var closure: String
        var testDescription: String { name }
    }

    static let manglings = [
        Mangling(name: "legacy", flags: [], closure: "{{closure}}"),
        Mangling(name: "v0", flags: ["-C", "symbol-mangling-version=v0"], closure: "{closure#0}"),
    ]

    static let source = Binaries.packageRoot + "/Tests/Fixtures/rust-loops/src/main.rs"
    static let tokioFixture = Binaries.packageRoot + "/Tests/Fixtures/rust-tokio-loop"

    static let rustc = rustTool("rustc")
    static let cargo = rustTool("cargo")
    /// Debian's packaged tokio (librust-tokio-dev), which the tokio fixture builds against offline.
    static let hasDebianTokio =
        ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/share/cargo/registry")) ?? []).contains {
            $0.hasPrefix("tokio-1.")
        }

    /// `name` on PATH, else rustup's in ~/.cargo/bin (where the machine image installs it).
    static func rustTool(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        return (path.map { $0 + "/" + name } + [home + "/.cargo/bin/" + name]).first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    @Test(.enabled(if: rustc != nil, "needs rustc (scripts/install-deps installs Debian's)"), arguments: manglings)
    func rustStallsBlameTheProgramsOwnFunctions(mangling: Mangling) throws {
        let directory = temporaryPath("rust")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let executable = directory + "/rust-loops"
        let built = try ToolRun.run(
            [
                try #require(Self.rustc), "--edition", "2021", "--crate-name", "rust_loops", "-g", "-C", "opt-level=0",
                "-C", "force-frame-pointers=yes",
            ]
                + mangling.flags + ["-o", executable, Self.source])
        try #require(built.status == 0, "rustc failed: \(built.stderr)")

        try Self.expectStalls(
            try LagmonProcess.run(["run", "--", executable]), module: "rust-loops", file: Self.source,
            injected: ["spin_in_plain_rust_fn", "run_closure_handler", "stall_in_async_handler"],
            culprits: [
                "rust_loops::spin_in_plain_rust_fn", "rust_loops::run_closure_handler::" + mangling.closure,
                "rust_loops::stall_in_async_handler::" + mangling.closure,
            ])
    }

    /// tokio's current_thread runtime with its I/O driver parks in epoll_wait: a loop. Its
    /// stalls blame the async fn and the spawned task's function, not tokio's scheduler.
    @Test(.enabled(if: cargo != nil && hasDebianTokio, "needs cargo and librust-tokio-dev (scripts/install-deps)"))
    func tokioCurrentThreadStallsBlameTheTasksOwnCode() throws {
        let directory = temporaryPath("tokio")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Built in a copy: cargo writes Cargo.lock beside Cargo.toml.
        try FileManager.default.copyItem(atPath: Self.tokioFixture, toPath: directory)
        let built = try ToolRun.run(
            [
                try #require(Self.cargo), "--config", directory + "/.cargo/config.toml", "build", "--offline",
                "--quiet",
                "--manifest-path", directory + "/Cargo.toml",
            ],
            environment: ["CARGO_TARGET_DIR": directory + "/target", "RUSTFLAGS": "-C force-frame-pointers=yes"])
        try #require(built.status == 0, "cargo build failed: \(built.stderr)")
        try Self.expectStalls(
            try LagmonProcess.run(["run", "--", directory + "/target/debug/rust-tokio-loop"]),
            module: "rust-tokio-loop", file: directory + "/src/main.rs",
            injected: ["handle_tick_in_async_fn", "spin_in_spawned_task"],
            culprits: [
                "rust_tokio_loop::handle_tick_in_async_fn::{{closure}}", "rust_tokio_loop::spin_in_spawned_task",
            ])
    }

    /// One stall per `injected` line of the fixture, each blamed on the matching `culprits` name
    /// (application code, with its file), lasting what the fixture measured (within 5 %), with
    /// core's `read_volatile` under it as library code and no mangled or hashed name anywhere.
    static func expectStalls(
        _ result: LagmonResult, module: String, file: String, injected names: [String], culprits: [String]
    ) throws {
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        let injected = LinkerLayoutTests.injected(result.stdout)
        #expect(injected.map(\.name) == names, "\(result.stdout)")
        #expect(report.stalls.count == names.count, "\(report.stalls.map(\.durationNs))")
        for (stall, (truth, name)) in zip(report.stalls, zip(injected, culprits)) {
            let culprit = try #require(stall.culprit)
            #expect(culprit.symbol == name)
            #expect(culprit.module == module)
            #expect(culprit.isLibrary == nil)
            #expect(culprit.file == file)
            let measuredMs = Double(stall.durationNs) / 1e6
            let injectedMs = Double(truth.durationNs) / 1e6
            #expect(
                abs(measuredMs - injectedMs) <= injectedMs * 0.05, "lagmon \(measuredMs) ms, fixture \(injectedMs) ms")
            let frames = stall.stacks.flatMap(\.frames)
            #expect(
                frames.contains { $0.symbol?.hasPrefix("core::ptr::read_volatile") == true && $0.isLibrary == true })
            #expect(!frames.contains { $0.symbol?.contains("17h") == true || $0.symbol?.hasPrefix("_R") == true })
        }
    }
}
