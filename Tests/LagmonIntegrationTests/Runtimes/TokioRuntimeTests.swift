import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// tokio runtimes that park on a futex (Tests/Fixtures/rust-tokio-runtimes, built offline against
/// Debian's crates): a `current_thread` runtime without its I/O driver is a loop, and a
/// `multi_thread` runtime's workers are watched at their parks, whichever they park in, so an
/// idle park is never a stall and a task holding a worker is one (docs/design/tokio.md).
@Suite(.serialized)
struct TokioRuntimeTests {
    static let fixture = Binaries.packageRoot + "/Tests/Fixtures/rust-tokio-runtimes"
    static let usable = RustStallTests.cargo != nil && RustStallTests.hasDebianTokio
    static let needs = "needs cargo and librust-tokio-dev (scripts/install-deps)"

    /// The fixture, built once for the suite in a copy (cargo writes Cargo.lock beside
    /// Cargo.toml): its directory and executable.
    static let built: Result<(directory: String, executable: String), BuildFailure> = build()

    struct BuildFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func build() -> Result<(directory: String, executable: String), BuildFailure> {
        let directory = temporaryPath("tokio-runtimes")
        do {
            try FileManager.default.copyItem(atPath: fixture, toPath: directory)
            let run = try ToolRun.run(
                [
                    RustStallTests.cargo ?? "cargo", "--config", directory + "/.cargo/config.toml", "build",
                    "--offline", "--quiet", "--manifest-path", directory + "/Cargo.toml",
                ],
                environment: ["CARGO_TARGET_DIR": directory + "/target", "RUSTFLAGS": "-C force-frame-pointers=yes"])
            guard run.status == 0 else { return .failure(BuildFailure(description: "cargo build: \(run.stderr)")) }
        } catch {
            return .failure(BuildFailure(description: "\(error)"))
        }
        return .success((directory, directory + "/target/debug/rust-tokio-runtimes"))
    }

    /// Without `net` the runtime parks on a futex (std's Condvar, through syscall()): its two
    /// stalls are found with default flags, each blamed on the program's own function.
    @Test(.enabled(if: usable, "\(needs)"))
    func aRuntimeParkedOnAFutexIsALoop() throws {
        let fixture = try Self.built.get()
        try RustStallTests.expectStalls(
            try LagmonProcess.run(["run", "--", fixture.executable, "current-thread-park"]),
            module: "rust-tokio-runtimes", file: fixture.directory + "/src/main.rs",
            injected: ["handle_tick_in_async_fn", "spin_in_spawned_task"],
            culprits: [
                "rust_tokio_runtimes::handle_tick_in_async_fn::{{closure}}",
                "rust_tokio_runtimes::spin_in_spawned_task",
            ])
    }

    /// A `multi_thread` pool of two workers, idle for 400 ms between its two stalls: each task
    /// holding a worker is one stall of that worker, as long as the task held it (no idle park
    /// counted in), blamed on the task's own function and said to have blocked a tokio worker.
    @Test(.enabled(if: usable, "\(needs)"))
    func aTaskHoldingAWorkerIsAStallOfThatWorker() throws {
        let fixture = try Self.built.get()
        let result = try LagmonProcess.run(["run", "--", fixture.executable, "pool"])
        try RustStallTests.expectStalls(
            result, module: "rust-tokio-runtimes", file: fixture.directory + "/src/main.rs",
            injected: ["hold_worker_in_plain_fn", "hold_worker_in_async_fn"],
            culprits: [
                "rust_tokio_runtimes::hold_worker_in_plain_fn",
                "rust_tokio_runtimes::hold_worker_in_async_fn::{{closure}}",
            ])
        let report = try #require(result.report)
        for stall in report.stalls {
            #expect(stall.observer == LoopObserver.tokioWorker)
            #expect(stall.thread.name == "tokio-runtime-w")
            #expect(stall.diagnosis.text.hasPrefix("blocked a tokio worker: "), "\(stall.diagnosis.text)")
        }
        // One task at a time: one worker of the two blocked, never all.
        let pool = try #require(report.tokioPool)
        #expect(pool.width == 2)
        #expect(pool.maxBlockedThreads == 1)
        #expect(pool.starvations.isEmpty)
        #expect(!report.diagnostics.contains { $0.code == "pool-starved" })
    }

    /// Two tasks holding both workers at once: two stalls, both workers blocked together, and the
    /// report says every task starved.
    @Test(.enabled(if: usable, "\(needs)"))
    func tasksHoldingEveryWorkerStarveThePool() throws {
        let fixture = try Self.built.get()
        let result = try LagmonProcess.run(["run", "--", fixture.executable, "starved-pool"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        // The two stalls overlap and either may start first: each is paired with the fixture's
        // measure of the same length rank.
        let injected = LinkerLayoutTests.injected(result.stdout).map(\.durationNs).sorted()
        let found = report.stalls.map(\.durationNs).sorted()
        #expect(injected.count == 2, "\(result.stdout)")
        #expect(found.count == 2, "\(found)")
        for (measured, truth) in zip(found, injected) {
            #expect(
                StallDuration.holds(measuredNs: measured, injectedNs: truth),
                "lagmon \(measured) ns, fixture \(truth) ns")
        }
        for stall in report.stalls {
            #expect(stall.culprit?.symbol == "rust_tokio_runtimes::hold_worker_in_plain_fn")
            #expect(stall.observer == LoopObserver.tokioWorker)
        }
        #expect(Set(report.stalls.map(\.thread.tid)).count == 2, "one stall on each worker")
        let pool = try #require(report.tokioPool)
        #expect(pool.width == 2)
        #expect(pool.maxBlockedThreads == 2)
        #expect(pool.starvations.count == 1)
        let starved = try #require(report.diagnostics.first { $0.code == "pool-starved" })
        #expect(starved.message.hasPrefix("tokio's worker pool was starved once"), "\(starved.message)")
    }

    /// An idle or lightly loaded pool (parks of up to 400 ms, short tasks) has no stall, while its
    /// workers are watched and wake up; nor has the blocking pool's thread, which ran four
    /// `spawn_blocking` closures of 300 ms one after the other: it is not a loop.
    @Test(.enabled(if: usable, "\(needs)"))
    func anIdlePoolHasNoStall() throws {
        let fixture = try Self.built.get()
        let result = try LagmonProcess.run(["run", "--", fixture.executable, "idle-pool"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(result.report)
        #expect(result.stdout.hasSuffix("done\n"), "\(result.stdout)")
        #expect(report.stalls.isEmpty, "\(report.stalls.map { ($0.thread.name, $0.durationNs, $0.diagnosis.text) })")
        let workers = report.loops.filter { $0.observer == LoopObserver.tokioWorker }
        #expect(!workers.isEmpty, "\(report.loops.map { ($0.thread.name, $0.observer) })")
        #expect(workers.allSatisfy { $0.iterations > 0 })
        #expect(workers.count <= 2, "only the two workers: \(workers.map(\.thread.tid))")
    }
}
