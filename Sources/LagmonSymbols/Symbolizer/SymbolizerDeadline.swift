import Glibc

/// When a symbolizer child is killed. The bound is there for a tool that hangs (a file that
/// never answers, a loop), not for one that waits its turn for a CPU: on a loaded machine
/// llvm-symbolizer can spend most of its 5 s runnable but not running, and killing it then lost
/// every file and line of the report. So time the child spent in the run queue
/// (`/proc/<pid>/schedstat`, second field) moves the deadline on, up to `maxExtensionNs`.
struct SymbolizerDeadline {
    /// The deadline without extension (SymbolizerClock).
    let baseNs: UInt64
    /// The most the deadline moves, however long the child waited for a CPU.
    let maxExtensionNs: UInt64
    /// The child.
    let pid: pid_t
    /// Its run-queue wait when the deadline was set.
    let queuedAtStartNs: UInt64

    /// A deadline `timeoutNs` from now for child `pid`, extended by at most `extensionFactor`
    /// times that.
    init(timeoutNs: UInt64, pid: pid_t, extensionFactor: UInt64 = 5) {
        baseNs = SymbolizerClock.nowNs() &+ timeoutNs
        maxExtensionNs = timeoutNs.multipliedReportingOverflow(by: extensionFactor).partialValue
        self.pid = pid
        queuedAtStartNs = Self.queuedNs(pid: pid) ?? 0
    }

    /// The deadline now: the base plus the child's run-queue wait since it was set (bounded).
    var nowNs: UInt64 {
        let queuedNs = Self.queuedNs(pid: pid) ?? 0
        return baseNs &+ min(queuedNs > queuedAtStartNs ? queuedNs - queuedAtStartNs : 0, maxExtensionNs)
    }

    /// Whether the deadline has passed at `nowNs` (SymbolizerClock).
    func passed(at nowNs: UInt64) -> Bool {
        nowNs >= baseNs && nowNs >= self.nowNs
    }

    /// Nanoseconds the process waited runnable for a CPU (its main thread's schedstat), nil when
    /// unreadable.
    static func queuedNs(pid: pid_t) -> UInt64? {
        let descriptor = open("/proc/\(pid)/schedstat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 96)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = buffer[0..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2 else { return nil }
        return UInt64(String(decoding: fields[1], as: UTF8.self))
    }
}
