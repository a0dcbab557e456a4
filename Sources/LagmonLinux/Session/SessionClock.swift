/// The session clock of an attach: CLOCK_MONOTONIC minus the instant the session began.
struct SessionClock: Sendable {
    /// CLOCK_MONOTONIC at the session's zero.
    let baseNs = MonotonicClock.nowNs()
    func nowNs() -> UInt64 { MonotonicClock.nowNs() - baseNs }
}
