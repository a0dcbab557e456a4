import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Which targets get an observer, and what lagmon says when none attaches.
struct ObserverTests {
    @Test func programWithoutCoreFoundationHasNoStallsAndSaysWhy() throws {
        // sh busy-loops for a while: busy, but there is no run loop to stall.
        let result = try LagmonProcess.run([
            "run", "--", "/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
        ])
        let report = try #require(result.report)
        #expect(report.loops.isEmpty)
        #expect(report.stalls.isEmpty)
        let diagnostic = try #require(report.diagnostics.first { $0.code == "no-observer" })
        #expect(diagnostic.message.contains("no event loop found"))
        #expect(result.lagmonLines.contains { $0.contains("no observer attached") })
    }

    @Test func foundationProgramThatNeverRunsItsLoopHasNoFalseStalls() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "noloop"])
        let report = try #require(result.report)
        #expect(result.status == 0)
        #expect(report.stalls.isEmpty)
        let diagnostic = try #require(report.diagnostics.first { $0.code == "no-observer" })
        #expect(diagnostic.message.contains("never ran its main run loop"))
    }

    /// An observer would cost CoreFoundation's observer dispatch (locks, a retain and a release)
    /// for every activity it watches; under the preload no observer is added: a pass that sleeps
    /// is recorded from CF's own wait on the port set, before-waiting as it enters and
    /// after-waiting as it returns (two transitions, where observers recorded three with
    /// before-sources), and every pass still counts as an iteration.
    @Test func aTimerDrivenLoopRecordsTwoTransitionsAPassFromItsWaits() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.demo, "--scenario", "idle", "--seconds", "1"])
        let report = try #require(result.report)
        let loop = try #require(report.loops.first)
        #expect(loop.observer == "cfrunloop")
        // A 50 ms timer for 1 s: about 20 passes, fewer on a loaded machine.
        #expect(loop.iterations >= 5)
        #expect(loop.transitions <= 2 * loop.iterations + 2, "\(loop.transitions) for \(loop.iterations) passes")
        #expect(loop.transitions >= 2 * loop.iterations - 2, "\(loop.transitions) for \(loop.iterations) passes")
        // A stall the machine's load caused (the loop waiting for a CPU past the threshold, seen
        // beside test-loaded's spinners in the demo's final timer callback) is a real one,
        // diagnosed as such; none may be the idle loop's own work.
        #expect(
            report.stalls.allSatisfy { $0.diagnosis.kind == .runqueue },
            "stalls: \(report.stalls.map { ($0.durationNs, $0.diagnosis.text) })")
    }

    /// A program that pumps its run loop (CFRunLoopRunInMode(default, 0, true) in a loop) runs
    /// its own code between two pumps, and the loop services nothing meanwhile: exit is not
    /// observed, so the loop stays in before-sources until the next pump, and a computation
    /// between pumps past the threshold is a stall, sampled inside it.
    @Test func computationBetweenTwoPumpsIsAStall() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.pumpedFixture])
        #expect(result.status == 0)
        let computed = result.stdout.split(separator: "\n").compactMap { line in
            line.hasPrefix("computed-ns=") ? UInt64(line.dropFirst("computed-ns=".count)) : nil
        }
        #expect(computed.count == 2, "fixture output: \(result.stdout)")
        let report = try #require(result.report)
        #expect(report.loops.count == 1)
        #expect(report.loops.first?.observer == "cfrunloop")
        // On a loaded machine a pump can also wait for a CPU past the threshold: a real stall,
        // but not one inside the computation.
        let between = report.stalls.filter { stall in
            stall.stacks.contains {
                $0.frames.contains { $0.symbol?.contains("pumpedFixtureComputeBetweenPumps") == true }
            }
        }
        #expect(
            between.count == 2, "stalls: \(report.stalls.map { ($0.durationNs, $0.activity, $0.diagnosis.text) })")
        for (stall, truth) in zip(between, computed) {
            #expect(
                DemoTruth(function: "pumpedFixtureComputeBetweenPumps", startMonotonicNs: 0, durationNs: truth).fits(
                    stall.durationNs),
                "stall \(stall.id): \(stall.durationNs) ns for a computation of \(truth) ns")
            #expect(stall.activity == "beforeSources")
        }
    }

    /// Nested runs of the main loop: a run in a private mode (no common mode includes it) services
    /// none of the loop's common modes, so its 400 ms are a stall of the pass that started it; a
    /// run in the default mode from inside a main-queue block (where CoreFoundation does not add
    /// the main queue to the port set) sleeps in the default mode's wait: idle passes of the loop,
    /// as observers in the common modes would see them, not a stall.
    @Test func aNestedRunStallsTheLoopOnlyOutsideItsCommonModes() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.pumpedFixture, "nested"])
        #expect(result.status == 0)
        let lengths = Dictionary(
            uniqueKeysWithValues: result.stdout.split(separator: "\n").compactMap { line -> (String, UInt64)? in
                let parts = line.split(separator: "=")
                guard parts.count == 2, let value = UInt64(parts[1]) else { return nil }
                return (String(parts[0]), value)
            })
        let privateRun = try #require(lengths["private-ns"], "fixture output: \(result.stdout)")
        let defaultRun = try #require(lengths["nested-default-ns"], "fixture output: \(result.stdout)")
        #expect(defaultRun >= 350_000_000, "the nested default-mode run slept its 400 ms")
        let report = try #require(result.report)
        let loop = try #require(report.loops.first)
        #expect(loop.observer == "cfrunloop")
        // A stall the machine's load caused (a wake-up waiting for a CPU) is shorter than either run.
        let long = report.stalls.filter { $0.durationNs >= 300_000_000 }
        #expect(long.count == 1, "stalls: \(report.stalls.map { ($0.durationNs, $0.activity) })")
        let stall = try #require(long.first)
        #expect(
            DemoTruth(function: "runNested", startMonotonicNs: 0, durationNs: privateRun).fits(stall.durationNs),
            "stall of \(stall.durationNs) ns for a private-mode run of \(privateRun) ns")
    }

    @Test func agentAloneObservesTheLoop() throws {
        let result = try LagmonProcess.run(["run", "--no-preload", "--", Binaries.agentFixture])
        #expect(result.stdout.contains("observed=true"))
        let report = try #require(result.report)
        #expect(report.loops.count == 1)
        #expect(report.stalls.count == 2)
        for stall in report.stalls {
            #expect(abs(Double(stall.durationNs) - 150e6) <= 15e6)
        }
    }

    @Test func agentAndPreloadTogetherDoNotDoubleCount() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.agentFixture])
        let report = try #require(result.report)
        #expect(report.loops.count == 1)
        #expect(report.stalls.count == 2)
    }

    @Test func agentOutsideLagmonIsANoOp() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.agentFixture)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text == "agent-fixture: observed=false\n")
        #expect(errorText.isEmpty)
    }

    @Test func thresholdOptionChangesWhatCountsAsAStall() throws {
        // The agent fixture stalls twice for 150 ms: none of them exceeds 200 ms, so neither is a
        // stall (at the default 100 ms both are). On a loaded machine a busy period can also wait
        // for a CPU past 200 ms: that one is a stall, and longer than the threshold.
        let result = try LagmonProcess.run(["run", "--threshold", "200ms", "--", Binaries.agentFixture])
        let report = try #require(result.report)
        #expect(report.config.thresholdNs == 200_000_000)
        #expect(
            report.stalls.allSatisfy { $0.durationNs > 200_000_000 },
            "stalls: \(report.stalls.map { ($0.durationNs, $0.diagnosis.text) })")
        #expect(report.loops.first?.latency.maxNs ?? 0 >= 150_000_000)
    }
}
