import CLagmonShared
import Glibc
import LagmonCore
import Synchronization

/// lagmon's coarse clock for Swift's cooperative pool: a thread that stores the channel clock into
/// the channel's tick (`lagmon_swift_tick.now_ns`) every `periodNs`, which a pool job reads as its
/// start and end instead of reading a clock (docs/design/swift-concurrency.md). Started with the
/// session's first Swift job slot: other sessions pay nothing for it.
///
/// A job's start is the last tick before it began: at most one period early, plus however late
/// this thread's wake-up was, which it tallies (`lateness`).
public final class SwiftJobTicker: Sendable {
    private let channel: Channel
    private let periodNs: UInt64
    private let stopping = Atomic<Bool>(false)
    /// The ticker's punctuality: the ticker thread's while it runs, the stopper's once joined.
    private let lateness: ThreadOwned<LatenessTally>
    private let thread = WorkerThread()

    /// A ticker for `channel`, whose stall threshold is `thresholdNs` (not started); its wake-ups
    /// later than `latenessToleranceNs` count as late. The period is computed again here, not read
    /// back from the channel, which the target can write.
    public init(channel: Channel, thresholdNs: UInt64, latenessToleranceNs: UInt64) {
        self.channel = channel
        periodNs = SwiftTick.periodNs(thresholdNs: thresholdNs)
        lateness = ThreadOwned(LatenessTally(toleranceNs: latenessToleranceNs))
    }

    /// Starts ticking. The ticker thread stores the first tick itself: a tick that no thread
    /// keeps up to date would make every later job look long.
    public func start() throws(SystemError) {
        try thread.start(name: "lagmon-tick") { [self] in
            lateness.claim()
            MonitorPriority.raiseLookingThread()
            run()
        }
    }

    /// Stops ticking (the tick keeps its last value) and returns the ticker's punctuality.
    public func stop() -> LatenessTally {
        stopping.store(true, ordering: .sequentiallyConsistent)
        thread.join()
        lateness.claim()
        return lateness.value
    }

    private func run() {
        channel.storeSwiftTick(channel.nowNs())
        var deadlineNs = channel.nowNs() + periodNs
        while !stopping.load(ordering: .relaxed) {
            sleep(until: deadlineNs)
            let nowNs = channel.nowNs()
            channel.storeSwiftTick(nowNs)
            lateness.value.record(deadlineNs: deadlineNs, wokeNs: nowNs)
            // A late wake-up does not bunch the next ticks up: the next is a period from now.
            deadlineNs = max(deadlineNs + periodNs, nowNs + periodNs / 2)
        }
    }

    /// Sleeps until `deadlineNs` (channel clock), resuming towards the same instant if interrupted.
    private func sleep(until deadlineNs: UInt64) {
        let wakeNs = channel.monotonicNs(deadlineNs)
        var wake = timespec(tv_sec: Int(wakeNs / 1_000_000_000), tv_nsec: Int(wakeNs % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nil) == EINTR {}
    }
}
