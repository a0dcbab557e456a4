import CLagmonLinux
import Foundation
import Glibc
import LagmonCore
import LagmonTestSupport
import Testing

@testable import LagmonLinux

/// A thread that is runnable but kept off the CPUs past `ThreadTracer.stopTimeoutNs` owes the
/// stop the sampler asked for. The samples queued behind that late stop wait for it (bounded like
/// any stop) and are taken when it comes. Before, every sample queued behind it was refused while
/// the stop was owed: on a busy machine `CPythonFrameTests` lost all 10 native samples so.
struct OwedStopTests {
    static let python = "/usr/bin/python3"

    @Test func samplesQueuedBehindALateStopAreTakenWhenItComes() throws {
        guard let cpu = Self.lastAllowedCPU() else {
            try Test.cancel("one CPU only; the thread kept off it would keep the sampler off too")
        }
        let release = FileManager.default.temporaryDirectory.appendingPathComponent("owed-stop-\(getpid())").path
        unlink(release)
        defer { unlink(release) }
        // A busy thread and a real-time spinner on one CPU: the thread is runnable, never running,
        // until the spinner sees the release file (or 5 s pass).
        let target = try FixtureProcess(
            Self.python,
            [
                "-c",
                "import os\nos.sched_setaffinity(0, {\(cpu)})\nprint('pid=%d' % os.getpid(), flush=True)\nwhile True: pass",
            ])
        defer { target.kill() }
        let pid = Int32(try #require(target.number(after: "pid=")))
        let hog = try FixtureProcess(
            "/usr/bin/chrt",
            [
                "-f", "1", Self.python, "-c",
                "import os, time\nos.sched_setaffinity(0, {\(cpu)})\nprint('hogging=1', flush=True)\nend = time.monotonic() + 5\nwhile time.monotonic() < end and not os.path.exists('\(release)'): pass",
            ])
        defer { hog.kill() }
        guard hog.number(after: "hogging=") != nil else {
            try Test.cancel("chrt -f was refused (no real-time budget here)")
        }
        let sampler = StackSampler(
            pid: pid, clock: { MonotonicClock.nowNs() }, readState: { ProcFS.threadState(pid: pid, tid: $0) })
        // The sampler's thread starts with this thread's CPUs minus the hogged one: placed on it,
        // it never ran to time the stop out (a loaded run waited 30 s with nothing lost).
        try Self.keepingThreadsOff(cpu: cpu) { try sampler.start() }
        // One batch: each request waits at most stopTimeoutNs for the stop, so sixty of them
        // outlast the spinner by far once it is released.
        for _ in 0..<60 { sampler.request(.sample(tid: pid, key: 1)) }
        // The first stop did not come in time: the thread owes it. Then let the thread run.
        _ = poll(seconds: 30) { sampler.liveCounts.lost >= 1 }
        #expect(sampler.liveCounts.lost >= 1, "the first stop came although the thread had no CPU")
        _ = FileManager.default.createFile(atPath: release, contents: nil)
        sampler.request(.finish(tid: pid, key: 1))
        let result = sampler.stop()
        let stacks = result.samples[1]?.filter { !$0.isStateOnly && !$0.addresses.isEmpty } ?? []
        #expect(
            !stacks.isEmpty,
            "no sample after the late stop: \(result.failures) lost, \(result.samples[1]?.count ?? 0) state-only")
        // Nothing is left traced.
        let status = String(decoding: ProcFS.readFile("/proc/\(pid)/status") ?? [], as: UTF8.self)
        #expect(status.contains("\nTracerPid:\t0\n"), "\(status)")
    }

    /// Runs `body` with the calling thread allowed every CPU it had but `cpu`, so the threads it
    /// starts inherit that; the calling thread's CPUs are restored after.
    static func keepingThreadsOff(cpu: Int, _ body: () throws -> Void) throws {
        let saved = lagmon_thread_cpus()
        guard cpu < 64, saved & ~(UInt64(1) << cpu) != 0 else { return try body() }
        _ = lagmon_set_thread_cpus(saved & ~(UInt64(1) << cpu))
        defer { _ = lagmon_set_thread_cpus(saved) }
        try body()
    }

    /// The highest-numbered CPU this process may run on (its status's `Cpus_allowed_list`, as
    /// `0-3,8`); nil with fewer than two.
    static func lastAllowedCPU() -> Int? {
        let status = String(decoding: ProcFS.readFile("/proc/self/status") ?? [], as: UTF8.self)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else {
            return nil
        }
        var allowed: [Int] = []
        let list = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        for part in list.split(separator: ",") {
            let bounds = part.split(separator: "-").compactMap { Int($0) }
            guard let first = bounds.first, let last = bounds.last, first <= last else { return nil }
            allowed += Array(first...last)
        }
        return allowed.count >= 2 ? allowed.last : nil
    }
}
