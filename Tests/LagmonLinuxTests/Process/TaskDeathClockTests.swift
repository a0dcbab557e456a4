import Foundation
import Glibc
import Testing

@testable import LagmonLinux

/// A SIGKILLed process records nothing; the kernel's taskstats date its death, however late the
/// reader looks.
struct TaskDeathClockTests {
    @Test func aKilledProcessDiesWhenTheKernelSaysNotWhenItWasNoticed() throws {
        guard let deaths = TaskDeathClock.open(clock: MonotonicClock.nowNs) else {
            print("skipped: taskstats refused a listener (registering needs CAP_NET_ADMIN in the initial namespaces)")
            return
        }
        defer { deaths.stop() }
        var pid: pid_t = 0
        let arguments = ["/bin/sleep", "60"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&pid, arguments[0], nil, nil, &argv, environ) == 0)
        #expect(deaths.follow(pid))
        let killedNs = MonotonicClock.nowNs()
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        let reapedNs = MonotonicClock.nowNs()
        // The lateness under test, not a synchronisation: the reader looks 300 ms after the death.
        usleep(300_000)
        let diedNs = try #require(deaths.deathNs(of: pid))
        // Between the kill and the reaping, to the start's bracket (microseconds) and a
        // microsecond of rounding each way.
        #expect(diedNs + 1_000_000 >= killedNs, "died \(diedNs), killed \(killedNs)")
        #expect(diedNs <= reapedNs + 1_000_000, "died \(diedNs), reaped \(reapedNs)")
        // Not followed: not dated.
        #expect(deaths.deathNs(of: getpid()) == nil)
    }

    @Test func theCPUListIsTheKernelsPossibleCPUs() {
        let cpus = TaskDeathClock.possibleCPUs()
        #expect(!cpus.isEmpty && cpus.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 44 || $0 == 45 })
        #expect(cpus.hasPrefix("0"))
    }
}
