import Glibc

/// SIGINT, SIGTERM and SIGHUP end an attach session instead of lagmon: they are blocked in every
/// thread and taken with sigtimedwait, so lagmon detaches from the process, writes its report and
/// exits normally. Nothing is sent to the watched process.
public enum StopSignals {
    /// The signals that end a session.
    public static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Blocks them in the calling thread and every thread it creates later: call it before any
    /// other thread starts.
    public static func block() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        // Taken here from now on, not by the taker that ends lagmon on them.
        SignalForwarder.shared.yield(handled)
    }

    /// Waits up to `timeoutNs` for one of them; returns it, or nil when none came.
    public static func wait(timeoutNs: UInt64) -> Int32? {
        var set = signalSet()
        var timeout = timespec(tv_sec: Int(timeoutNs / 1_000_000_000), tv_nsec: Int(timeoutNs % 1_000_000_000))
        let signal = sigtimedwait(&set, nil, &timeout)
        return signal > 0 ? signal : nil
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in handled { sigaddset(&set, signal) }
        return set
    }
}
