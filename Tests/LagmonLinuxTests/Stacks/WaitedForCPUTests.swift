import LagmonCore
import Testing

@testable import LagmonLinux

/// When a runnable thread that did not reach its stop counts as waiting for a CPU.
struct WaitedForCPUTests {
    static let ms: UInt64 = 1_000_000

    static func reading(at ms: UInt64, runDelayMs: UInt64, onCPUMs: UInt64) -> TimedThreadState {
        TimedThreadState(
            timestampNs: ms * Self.ms,
            state: ThreadStateSample(
                state: .running, syscall: nil, wchan: nil, runDelayNs: runDelayMs * Self.ms, onCPUNs: onCPUMs * Self.ms)
        )
    }

    @Test func countersThatStoodStillMeanTheThreadIsStillWaiting() {
        // schedstat adds a wait only when the thread gets a CPU again.
        let before = Self.reading(at: 100, runDelayMs: 40, onCPUMs: 5)
        #expect(StackSampler.waitedForCPU(Self.reading(at: 120, runDelayMs: 40, onCPUMs: 5), since: before))
        #expect(StackSampler.waitedForCPU(Self.reading(at: 120, runDelayMs: 41, onCPUMs: 20), since: before))
    }

    @Test func aThreadWhoseCPUTimeKeptUpWasRunning() {
        let before = Self.reading(at: 100, runDelayMs: 40, onCPUMs: 5)
        #expect(!StackSampler.waitedForCPU(Self.reading(at: 120, runDelayMs: 40, onCPUMs: 15), since: before))
        #expect(!StackSampler.waitedForCPU(Self.reading(at: 120, runDelayMs: 40, onCPUMs: 25), since: before))
        // No baseline, or none earlier: nothing to compare.
        #expect(!StackSampler.waitedForCPU(before, since: nil))
        #expect(!StackSampler.waitedForCPU(before, since: before))
    }
}
