import CLagmonLinux
import Glibc
import LagmonCore

/// The sampler's rules, as pure functions of what it read (tested on their own).
extension StackSampler {
    /// Whether to poll for a requested stop before sleeping: not when the thread last ran on (or
    /// waits for) the sampler's own CPU, where it can only stop once the sampler sleeps and
    /// polling only delays it; where it runs on another CPU a poll catches the stop without the
    /// wake-up of a sleeping sampler (docs/benchmarks.md, "The poll only across CPUs").
    static func pollsForStop(lastCPU: Int32?, samplerCPU: Int32 = lagmon_sched_getcpu()) -> Bool {
        guard let lastCPU else { return true }
        return lastCPU != samplerCPU
    }

    /// Whether a thread in scheduler state `state`, owed a stop, reaches it without lagmon's
    /// help: runnable (it stops once it has a CPU) or already in it.
    static func reachesOwedStop(_ state: SchedulerState) -> Bool {
        state == .running || state == .tracingStop
    }

    /// Whether a runnable thread that did not get to its stop waited for a CPU since reading
    /// `before`: its run-queue delay grew, or its CPU time grew by less than half the time
    /// between the readings. schedstat counts a wait only when the thread gets a CPU again, so
    /// a thread still waiting shows counters that stood still; one whose CPU time kept up was
    /// running, and an `R` of it says nothing true about the stall.
    static func waitedForCPU(_ reading: TimedThreadState, since before: TimedThreadState?) -> Bool {
        guard let before, reading.timestampNs > before.timestampNs else { return false }
        if reading.state.runDelayNs > before.state.runDelayNs { return true }
        let ranNs = reading.state.onCPUNs > before.state.onCPUNs ? reading.state.onCPUNs - before.state.onCPUNs : 0
        return ranNs < (reading.timestampNs - before.timestampNs) / 2
    }

    /// Why ptrace was refused: another tracer holds the thread (strace, gdb: only one tracer at
    /// a time, whoever lagmon runs as), or lagmon lacks the privilege.
    static func refusal(pid: Int32, tid: Int32) -> String {
        let status = String(decoding: ProcFS.readFile("/proc/\(pid)/task/\(tid)/status") ?? [], as: UTF8.self)
        let tracer = status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }
            .flatMap { Int32($0.dropFirst("TracerPid:".count).filter { !$0.isWhitespace }) }
        guard let tracer, tracer != 0, tracer != getpid() else { return permissionAdvice }
        let name = ProcFS.readFile("/proc/\(tracer)/comm").map {
            QuotedText.printable(String(decoding: $0, as: UTF8.self).filter { $0 != "\n" }, limit: 32)
        }
        return
            "ptrace was refused (EPERM): thread \(tid) is already traced by pid \(tracer)\(name.map { " (\($0))" } ?? ""), and a thread has one tracer at a time, so stalls have no stacks; detach that tracer (end strace or gdb) and run lagmon again; stall detection is unaffected"
    }

    static let permissionAdvice =
        "ptrace was refused (EPERM), so stalls have no stacks: run lagmon as root or with CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE), or as the target's user with /proc/sys/kernel/yama/ptrace_scope at 0 or 1 (non-dumpable targets need CAP_SYS_PTRACE); stall detection is unaffected"

    /// Red zone, the rest of the stack pointer's page, and the window.
    static let stackCopyBytes = 128 + 4096 + StackSampler.stackWindowBytes
}
