import Foundation
import Glibc
import Testing

@testable import LagmonSymbols

/// The symbolizer's deadline does not count time the tool waited for a CPU (a loaded machine),
/// but does count time it was blocked (a hung tool).
@Suite(.serialized)
struct SymbolizerDeadlineTests {
    /// Starts `arguments`; the caller kills it.
    private func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        try process.run()
        return process
    }

    private func stop(_ processes: [Process]) {
        for process in processes {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func timeAChildWaitedForACPUMovesTheDeadline() throws {
        // Two spinners pinned to one CPU: each waits in the run queue while the other runs.
        let spin = ["/usr/bin/taskset", "-c", "0", "/bin/sh", "-c", "while :; do :; done"]
        let spinners = [try start(spin), try start(spin)]
        defer { stop(spinners) }
        let deadline = SymbolizerDeadline(timeoutNs: 1_000_000, pid: spinners[0].processIdentifier)
        #expect(deadline.maxExtensionNs == 5_000_000)
        // Bounded: until it has waited 5 ms for the CPU since the deadline was set.
        let giveUp = SymbolizerClock.nowNs() + 30_000_000_000
        while deadline.nowNs < deadline.baseNs + 5_000_000, SymbolizerClock.nowNs() < giveUp { usleep(1_000) }
        #expect(deadline.nowNs == deadline.baseNs + deadline.maxExtensionNs)
        #expect(!deadline.passed(at: deadline.baseNs + 1_000_000))
        #expect(deadline.passed(at: deadline.baseNs + 5_000_000))
    }

    @Test func aBlockedChildGetsNoMoreTime() throws {
        let sleeper = try start(["/bin/sleep", "60"])
        defer { stop([sleeper]) }
        // Once it sleeps in clock_nanosleep (230) it is off the run queue.
        let giveUp = SymbolizerClock.nowNs() + 30_000_000_000
        let path = "/proc/\(sleeper.processIdentifier)/syscall"
        while (try? String(contentsOfFile: path, encoding: .utf8))?.hasPrefix("230 ") != true,
            SymbolizerClock.nowNs() < giveUp
        {
            usleep(1_000)
        }
        let deadline = SymbolizerDeadline(timeoutNs: 1_000_000, pid: sleeper.processIdentifier)
        usleep(20_000)
        #expect(deadline.nowNs == deadline.baseNs)
        #expect(deadline.passed(at: deadline.baseNs))
    }
}
