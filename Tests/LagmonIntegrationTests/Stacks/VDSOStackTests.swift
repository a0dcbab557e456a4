import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Samples taken inside clock_gettime (in the vDSO) unwind through it to the program's own code
/// and the thread's entry; a stack that cannot is counted as an unwind error, never as complete.
@Suite(.serialized)
struct VDSOStackTests {
    @Test func aLoopOfClockGettimeCallsIsBlamedOnTheProgramsOwnFunction() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.stackFixture, "clock"])
        let report = try #require(result.report)
        let stall = try #require(report.stalls.first)
        #expect(stall.culprit?.symbol == "spins_in_clock_gettime")
        #expect(stall.culprit?.module == "lagmon-stack-fixture")
        let reaching = stall.stacks.filter { stack in
            stack.frames.first?.symbol == "_start" && stack.frames.contains { $0.symbol == "spins_in_clock_gettime" }
        }
        let reached = reaching.reduce(0) { $0 + $1.count }
        #expect(10 * reached >= 9 * stall.samples, "\(reached) of \(stall.samples) samples reach the program")
        let throughVDSO = stall.stacks.filter { $0.frames.last?.module == "[vdso]" }
        #expect(throughVDSO.allSatisfy { stack in reaching.contains { $0.frames == stack.frames } })
        // Named after the target exited, from lagmon's own vDSO (the same kernel's image).
        #expect(throughVDSO.allSatisfy { $0.frames.last?.symbol?.contains("clock_gettime") == true })
        #expect(report.sampling.unwindErrors == 0)
    }

    @Test func anAsyncioLoopCallingTimeMonotonicUnwindsThroughTheVDSO() throws {
        let result = try LagmonProcess.run(["run", "--", "python3", WaitCallLoopTests.asyncioFixture, "monotonic"])
        let report = try #require(result.report)
        let stall = try #require(report.stalls.first)
        let throughVDSO = stall.stacks.filter { $0.frames.last?.module == "[vdso]" }
        #expect(!throughVDSO.isEmpty, "no sample landed in the vDSO")
        // Each reaches the interpreter's entry through its own frames.
        for stack in throughVDSO {
            #expect(stack.frames.first?.symbol == "_start")
            #expect(stack.frames.contains { $0.symbol == "time_monotonic" })
        }
        let culprit = try #require(stall.culprit)
        #expect(!ModuleClassifier.isSystem(culprit.module), "culprit \(culprit.symbol ?? "?") in \(culprit.module)")
        #expect(report.sampling.unwindErrors == 0)
    }
}
