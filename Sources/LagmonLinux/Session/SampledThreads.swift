import LagmonCore
import Synchronization

/// Which thread a loop's busy period is being sampled on. A thread's own loop always stays on
/// it; the Swift main actor's jobs run on whichever thread libdispatch picks, so the thread is
/// taken when the busy period is first seen (the one running the stalled job) and kept until the
/// period ends, so its samples and its detach go to the same thread whatever runs next.
final class SampledThreads: Sendable {
    private let byStart = Mutex<[UInt64: Int32]>([:])

    /// The thread to sample for `event`, `current` being the slot's thread now.
    func thread(for event: StallDetector.Event, current: Int32) -> Int32 {
        switch event {
        case .armed(let startNs, _): return keep(startNs, current)
        case .began(let stall), .continuing(let stall): return keep(stall.startNs, current)
        case .ended(let stall, _): return byStart.withLock { $0.removeValue(forKey: stall.startNs) ?? current }
        case .disarmed(let startNs): return byStart.withLock { $0.removeValue(forKey: startNs) ?? current }
        }
    }

    private func keep(_ startNs: UInt64, _ current: Int32) -> Int32 {
        byStart.withLock { threads in
            if let kept = threads[startNs] { return kept }
            threads[startNs] = current
            return current
        }
    }
}
