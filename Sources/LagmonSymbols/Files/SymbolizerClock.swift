import Glibc

/// CLOCK_MONOTONIC for the symbolizer's deadlines and its own cost. (LagmonLinux's
/// `MonotonicClock` reads the same clock; symbolization keeps no dependency on process control.)
enum SymbolizerClock {
    /// Nanoseconds since an arbitrary fixed point (boot).
    static func nowNs() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
