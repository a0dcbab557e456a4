import CLagmonLinux
import Glibc
import Testing

@testable import LagmonLinux

/// The sampler polls for a requested stop only when the thread last ran on another CPU than its
/// own: on the sampler's CPU the thread can only stop once the sampler sleeps.
struct StopPollTests {
    @Test func aThreadOnTheSamplersOwnCPUIsNotPolledFor() {
        #expect(StackSampler.pollsForStop(lastCPU: 1, samplerCPU: 1) == false)
        #expect(StackSampler.pollsForStop(lastCPU: 0, samplerCPU: 1))
        // Unknown: poll, as before the CPU was looked at.
        #expect(StackSampler.pollsForStop(lastCPU: nil, samplerCPU: 1))
    }

    /// The CPU comes from the thread's /proc stat: for a running thread, the one it runs on.
    @Test func theLastCPUIsTheOneTheThreadRunsOn() throws {
        let pid = getpid()
        let tid = lagmon_gettid()
        // Read until the CPU before and after the read agree with it: only a move of this thread
        // during every one of the reads could keep them from it.
        var agreed = false
        for _ in 0..<1000 where !agreed {
            let before = lagmon_sched_getcpu()
            let state = try #require(ProcFS.threadState(pid: pid, tid: tid))
            agreed = state.lastCPU == before && lagmon_sched_getcpu() == before
        }
        #expect(agreed)
    }
}
