/// What lagmon knows of when a thread's current wait started, carried from one stop of the
/// thread to the next (the sampler keeps one per thread): a timed wait a stop breaks is
/// restarted with the time left from there (`InterruptedWait`).
struct WaitHistory: Equatable {
    /// The last moment (MonotonicClock) the thread was known to be outside any wait it may be
    /// in now: seen running in /proc, or let go from a stop of lagmon's.
    var awakeAtNs: UInt64?
    /// The timed wait lagmon last restarted, so that a stop landing in it again restarts it
    /// towards the same deadline (a fresh count from each restart would add a millisecond's
    /// rounding per stop).
    var restarted: RestartedWait?

    /// Notes that the thread was outside any wait at `nowNs`.
    mutating func noteAwake(at nowNs: UInt64) {
        awakeAtNs = max(awakeAtNs ?? 0, nowNs)
    }

    /// The deadline of a timed wait of `timeoutNs` that a stop found broken at `nowNs`, which
    /// the registers describe as `call`: the restarted wait's when it is that one and still
    /// running, else counted from `awakeAtNs`; nil when the wait's start is unknown.
    func deadlineNs(of call: RestartedWait.Call, timeoutNs: UInt64, nowNs: UInt64) -> UInt64? {
        if let restarted, restarted.call == call, restarted.deadlineNs > nowNs { return restarted.deadlineNs }
        guard let awakeAtNs else { return nil }
        let (deadline, overflow) = awakeAtNs.addingReportingOverflow(timeoutNs)
        return overflow ? UInt64.max : deadline
    }
}

/// A timed wait lagmon restarted, and the deadline it restarted it towards.
struct RestartedWait: Equatable {
    /// What identifies the restarted call in the registers of a later stop.
    struct Call: Equatable {
        /// The system call number.
        var number: UInt64
        /// Its first argument (the epoll descriptor).
        var descriptor: UInt64
        /// The timeout it was restarted with, in milliseconds.
        var timeoutMilliseconds: Int32
    }
    /// The call as restarted.
    var call: Call
    /// When the wait was due to end (MonotonicClock).
    var deadlineNs: UInt64
}
