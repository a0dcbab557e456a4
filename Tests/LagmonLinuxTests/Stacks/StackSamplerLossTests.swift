import Foundation
import LagmonCore
import Testing

@testable import LagmonLinux

/// Samples that cannot be taken are counted, never invented.
struct StackSamplerLossTests {
    /// A thread that exited before its sample (ESRCH at the seize): each request is one lost
    /// sample, and nothing is left traced.
    @Test func samplesOfAThreadThatExitedAreCountedAsLost() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let pid = process.processIdentifier
        let sampler = StackSampler(
            pid: pid, clock: { MonotonicClock.nowNs() }, readState: { ProcFS.threadState(pid: pid, tid: $0) })
        try sampler.start()
        // Three busy periods (one batch's requests of one period are served by one sample).
        for key: UInt64 in 1...3 { sampler.request(.sample(tid: pid, key: key)) }
        let result = sampler.stop()
        #expect(result.failures == 3)
        #expect(result.samples.values.allSatisfy { $0.isEmpty })
        #expect(result.unavailable == nil, "a gone thread is not a permission problem")
    }
}
