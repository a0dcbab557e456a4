import Glibc

/// Asks `condition` every `intervalMicroseconds` until it holds or `seconds` passed, and says
/// whether it held. The bound only ends a failing test: what is awaited must signal itself (a line
/// on a pipe, a file, a state in /proc), never be assumed done after a delay.
public func poll(seconds: Double, intervalMicroseconds: UInt32 = 1_000, _ condition: () -> Bool) -> Bool {
    pollValue(seconds: seconds, intervalMicroseconds: intervalMicroseconds) { condition() ? true : nil } ?? false
}

/// Asks `probe` every `intervalMicroseconds` until it returns a value or `seconds` passed.
public func pollValue<Value>(
    seconds: Double, intervalMicroseconds: UInt32 = 1_000, _ probe: () -> Value?
) -> Value? {
    let deadlineNs = monotonicNs() + UInt64(seconds * 1e9)
    while true {
        if let value = probe() { return value }
        if monotonicNs() >= deadlineNs { return nil }
        usleep(intervalMicroseconds)
    }
}

private func monotonicNs() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
