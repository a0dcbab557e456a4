import Foundation
import Glibc
import Testing

@testable import LagmonLinux

/// A SIGKILLed process records nothing; the kernel's taskstats date its death, however late the
/// reader looks.
struct TaskDeathClockTests {
    /// Several processes followed at once (a run's target and its descendants), killed one after
    /// the other: each death is dated between its kill and its reaping.
    @Test func killedProcessesDieWhenTheKernelSaysNotWhenItWasNoticed() throws {
        guard let deaths = TaskDeathClock.open(clock: MonotonicClock.nowNs) else {
            try Test.cancel("taskstats refused a listener (registering needs CAP_NET_ADMIN in the initial namespaces)")
        }
        defer { deaths.stop() }
        let pids = try (0..<3).map { _ in try Self.spawnSleeper() }
        for pid in pids { #expect(deaths.follow(pid)) }
        var brackets: [(killed: UInt64, reaped: UInt64)] = []
        for pid in pids {
            let killedNs = MonotonicClock.nowNs()
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            brackets.append((killedNs, MonotonicClock.nowNs()))
        }
        // The lateness under test, not a synchronisation: the reader looks 300 ms after the deaths.
        usleep(300_000)
        for (pid, bracket) in zip(pids, brackets) {
            let diedNs = try #require(deaths.takeDeathNs(of: pid))
            // Between the kill and the reaping, to the start's bracket (microseconds) and a
            // microsecond of rounding each way.
            #expect(diedNs + 1_000_000 >= bracket.killed, "died \(diedNs), killed \(bracket.killed)")
            #expect(diedNs <= bracket.reaped + 1_000_000, "died \(diedNs), reaped \(bracket.reaped)")
            #expect(deaths.takeDeathNs(of: pid) == nil, "each death is told once")
        }
        // Not followed: not dated.
        #expect(deaths.takeDeathNs(of: getpid()) == nil)
    }

    @Test func followingIsBoundedAndAGoneProcessIsRefused() throws {
        guard let deaths = TaskDeathClock.open(clock: MonotonicClock.nowNs) else {
            try Test.cancel("taskstats refused a listener (registering needs CAP_NET_ADMIN in the initial namespaces)")
        }
        defer { deaths.stop() }
        let pids = try (0...TaskDeathClock.maxFollowed).map { _ in try Self.spawnSleeper() }
        defer {
            for pid in pids {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                _ = waitpid(pid, &status, 0)
            }
        }
        let followed = pids.map { deaths.follow($0) }
        #expect(followed.dropLast().allSatisfy { $0 })
        #expect(followed.last == false, "one past the filter's bound")
        // One dies: room for another, and its death is dated.
        kill(pids[0], SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pids[0], &status, 0)
        #expect(deaths.takeDeathNs(of: pids[0]) != nil)
        #expect(deaths.follow(pids.last!))
        #expect(!deaths.follow(pids[0]), "a process already gone has no start to date from")
    }

    static func spawnSleeper() throws -> pid_t {
        var pid: pid_t = 0
        let arguments = ["/bin/sleep", "60"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&pid, arguments[0], nil, nil, &argv, environ) == 0)
        return pid
    }

    @Test func theCPUListIsTheKernelsPossibleCPUs() {
        let cpus = TaskDeathClock.possibleCPUs()
        #expect(!cpus.isEmpty && cpus.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 44 || $0 == 45 })
        #expect(cpus.hasPrefix("0"))
    }
}
