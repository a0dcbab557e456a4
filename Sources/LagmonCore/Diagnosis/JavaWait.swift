/// What a stalled Java thread waited for when its samples sat in a futex: HotSpot runs
/// `Thread.sleep`, `Object.wait`, `LockSupport.park` and a contended `synchronized` alike on a
/// pthread condition variable, so the futex says "lock" for all four. The thread's own frames
/// tell them apart: the Java methods the perf map names (`java.lang.Thread.sleep`) or, when the
/// map does not name them, HotSpot's functions under them (`JVM_Sleep`, `ObjectMonitor::enter`).
public enum JavaWait: String, Sendable, Equatable {
    case sleep, objectWait, park, monitor

    /// Frames searched from the innermost outwards: HotSpot's frames under the Java method and
    /// the glibc ones under them.
    static let framesSearched = 24

    /// Symbols (or parts of them) that mark each wait, the Java method first.
    static let markers: [(JavaWait, [String])] = [
        (.sleep, ["java.lang.Thread.sleep", "JVM_Sleep", "JavaThread::sleep"]),
        (.objectWait, ["java.lang.Object.wait", "JVM_MonitorWait", "ObjectMonitor::wait"]),
        (.park, ["jdk.internal.misc.Unsafe.park", "sun.misc.Unsafe.park", "Unsafe_Park", "Parker::park"]),
    ]
    /// A contended `synchronized` (a monitor's re-entry after `Object.wait` is part of the wait).
    static let monitorMarkers = ["ObjectMonitor::enter", "ObjectMonitor::EnterI", "ObjectSynchronizer::enter"]

    /// The wait `frames` (innermost first) show; a sleep, wait or park anywhere among the
    /// searched frames outranks a monitor entry.
    public static func of(_ frames: [Frame]) -> JavaWait? {
        let symbols = frames.prefix(framesSearched).compactMap(\.symbol)
        for (wait, names) in markers where symbols.contains(where: { symbol in names.contains(where: symbol.contains) })
        {
            return wait
        }
        let entering = symbols.contains { symbol in monitorMarkers.contains(where: symbol.contains) }
        return entering ? .monitor : nil
    }

    /// The wait most samples in a futex show; nil when none shows one (not a JVM, or frames
    /// without symbols).
    public static func analyze(_ samples: [ResolvedSample]) -> JavaWait? {
        let inFutex = samples.filter { sample in
            // `restart_syscall`: the futex wait resumed after an earlier sample's stop.
            sample.sample.state?.syscall.map {
                SyscallTable.lockWaitCalls.contains($0.name) || $0.number == SyscallTable.restartNumber
            } ?? false
        }
        return LockWaitAnalyzer.mostCommon(inFutex.compactMap { of($0.frames) })
    }

    /// The stall's diagnosis: a sleep for the first three (`sleeping for 300ms
    /// (java.lang.Thread.sleep)`), a lock for a monitor; `durationNs` is the futex samples' share.
    public func diagnosis(durationNs: UInt64) -> StallDiagnosis {
        let duration = DurationText.format(nanoseconds: durationNs)
        switch self {
        case .sleep: return StallDiagnosis(kind: .sleep, text: "sleeping for \(duration) (java.lang.Thread.sleep)")
        case .objectWait:
            return StallDiagnosis(kind: .sleep, text: "waiting \(duration) in java.lang.Object.wait (until notified)")
        case .park:
            return StallDiagnosis(
                kind: .sleep, text: "parked for \(duration) (java.util.concurrent.locks.LockSupport.park)")
        case .monitor:
            return StallDiagnosis(
                kind: .lock, text: "waiting \(duration) to enter a Java monitor (synchronized; no owner recorded)")
        }
    }
}
