import Foundation
import LagmonCore
import LagmonTestSupport
import Synchronization
import Testing

@testable import LagmonLinux

/// What each stop of the sampler tells about the thread it stopped.
@Suite(.serialized)
struct StackSamplerStopTests {
    /// A Python process whose main thread sits in `poll` or spins (user space): each stop reports
    /// the state the registers show (poll: waiting, also once an earlier stop made the kernel
    /// resume it as `restart_syscall`), which the /proc probe takes as a reading.
    @Test(arguments: [
        ("import select; print('ready', flush=True); select.poll().poll()", ProcLoopReading.State.waiting),
        ("print('ready', flush=True)\nwhile True: pass", .busy),
    ])
    func eachStopSaysWhatTheThreadWasDoing(script: String, expected: ProcLoopReading.State) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer {
            // SIGKILL: the test process may have SIGTERM blocked, and the child inherits that.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // The script prints `ready` right before it polls or spins.
        _ = output.fileHandleForReading.readData(ofLength: 6)
        let pid = process.processIdentifier
        let stops = Mutex<[(requestedNs: UInt64, stoppedNs: UInt64, state: ProcLoopReading.State)]>([])
        var options = StackSampler.Options()
        options.onStopped = { _, _, requestedNs, stoppedNs, state in
            stops.withLock { $0.append((requestedNs, stoppedNs, state)) }
        }
        let sampler = StackSampler(
            pid: pid, clock: { MonotonicClock.nowNs() }, readState: { ProcFS.threadState(pid: pid, tid: $0) },
            options: options)
        try sampler.start()
        // Separate busy periods, so no request is merged with another; the thread is released after
        // each. A stop makes the kernel restart the poll: the next sample is asked for once the
        // thread sleeps in it again (a sample taken while it re-enters the call rightly says
        // `resuming`), with every wait bounded.
        for key: UInt64 in 1...3 {
            if expected == .waiting { _ = poll(seconds: 10) { Self.asleep(pid) } }
            sampler.request(.sample(pid: pid, tid: pid, key: key))
            sampler.request(.finish(pid: pid, tid: pid, key: key + 100))
            _ = poll(seconds: 10) { stops.withLock { $0.count } >= Int(key) }
        }
        let result = sampler.stop()
        let seen = stops.withLock { $0 }
        #expect(result.unavailable == nil)
        // The thread may still be between `ready` and its poll at the first stop: the others see it.
        #expect(seen.count == 3)
        #expect(seen.dropFirst().allSatisfy { $0.state == expected }, "\(seen)")
        #expect(seen.allSatisfy { $0.requestedNs <= $0.stoppedNs })
        let last = try #require(result.samples[3]?.last)
        #expect(expected == .busy ? last.syscallAtStop == nil : last.syscallAtStop != nil)
        #expect(ProcFS.taskStat(pid: pid, tid: pid)?.state != .tracingStop, "released")
    }

    /// `lagmon attach` spares a loop thread asleep in its wait call (the busy period the request
    /// was for is over): no stop, so its wait is not broken and it never wakes for lagmon (its
    /// voluntary context switches stay put); the /proc reading goes to the probe as `waiting`.
    @Test func aThreadAsleepInItsWaitIsNotStoppedWhenSpared() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import select; print('ready', flush=True); select.poll().poll()"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        _ = output.fileHandleForReading.readData(ofLength: 6)
        let pid = process.processIdentifier
        #expect(poll(seconds: 10) { Self.asleep(pid) })
        let switchesBefore = try #require(Self.voluntarySwitches(pid))
        let stops = Mutex<[ProcLoopReading.State]>([])
        var options = StackSampler.Options(sparesWaitingThreads: true)
        options.onStopped = { _, _, _, _, state in stops.withLock { $0.append(state) } }
        let sampler = StackSampler(
            pid: pid, clock: { MonotonicClock.nowNs() }, readState: { ProcFS.threadState(pid: pid, tid: $0) },
            options: options)
        try sampler.start()
        for key: UInt64 in 1...3 {
            sampler.request(.sample(pid: pid, tid: pid, key: key))
            sampler.request(.finish(pid: pid, tid: pid, key: key))
        }
        #expect(poll(seconds: 10) { stops.withLock { $0.count } >= 3 })
        let result = sampler.stop()
        #expect(stops.withLock { $0 } == [.waiting, .waiting, .waiting])
        #expect(result.samples.isEmpty && result.failures == 0)
        #expect(Self.voluntarySwitches(pid) == switchesBefore, "the thread was woken")
    }

    /// The thread's `voluntary_ctxt_switches` (/proc/<pid>/status): how many times it went to sleep.
    static func voluntarySwitches(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
        return line.flatMap { Int($0.split(separator: "\t").last ?? "") }
    }

    /// Whether thread `pid` sleeps in a wait call (/proc: state S, a wait channel of poll's).
    static func asleep(_ pid: Int32) -> Bool {
        guard let state = ProcFS.threadState(pid: pid, tid: pid) else { return false }
        return state.state == .sleeping && state.wchan?.contains("poll") == true
    }
}
