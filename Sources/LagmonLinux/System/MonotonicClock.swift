import Glibc

/// CLOCK_MONOTONIC, the clock lagmon and the in-target observer share.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot).
    public static func nowNs() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
