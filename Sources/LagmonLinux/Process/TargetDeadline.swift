import Glibc
import LagmonCore
import Synchronization

/// `lagmon run --duration`: stops the target when its time is up, as `timeout -k` does. At the
/// limit it sends SIGTERM; if the target still runs `graceNs` later, SIGKILL. Each step is
/// announced through `announce` (lagmon says so on stderr). Cancelled by `stop()` when the
/// target ends first; then nothing is sent.
public final class TargetDeadline: Sendable {
    /// What was done to the target.
    public enum Step: Sendable, Equatable {
        /// SIGTERM sent at the limit.
        case terminated
        /// SIGKILL sent after the grace period.
        case killed
    }

    private let limitNs: UInt64
    private let graceNs: UInt64
    private let announce: @Sendable (Step) -> Void
    /// Written once to wake the waiting thread early (the target ended).
    private let wake: (read: Int32, write: Int32)
    private let thread = Mutex<JoinableThread?>(nil)

    /// A deadline `limitNs` after `start()`, then SIGKILL `graceNs` after SIGTERM.
    public init(limitNs: UInt64, graceNs: UInt64, announce: @escaping @Sendable (Step) -> Void) throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw SystemError("pipe") }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        self.limitNs = limitNs
        self.graceNs = graceNs
        self.announce = announce
        wake = (descriptors[0], descriptors[1])
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Starts counting for the process `pid`, and the descendants `followed` lists at each step
    /// (`--follow-children`: lagmon's adopted children, which outlived their parent). After the
    /// SIGKILL, a descendant adopted later (its parent died of it) is killed too, until `stop()`.
    public func start(pid: pid_t, followed: @escaping @Sendable () -> [pid_t] = { [] }) throws {
        let started = MonotonicClock.nowNs()
        let worker = try JoinableThread(name: "lagmon-deadline") { [self] in
            guard sleep(until: started &+ limitNs) else { return }
            for receiver in [pid] + followed() { kill(receiver, SIGTERM) }
            announce(.terminated)
            guard sleep(until: MonotonicClock.nowNs() &+ graceNs) else { return }
            for receiver in [pid] + followed() { kill(receiver, SIGKILL) }
            announce(.killed)
            while sleep(until: MonotonicClock.nowNs() &+ 100_000_000) {
                for receiver in followed() { kill(receiver, SIGKILL) }
            }
        }
        thread.withLock { $0 = worker }
    }

    /// Cancels what has not happened yet and waits for the thread. Call it once the target has
    /// exited but before it is reaped, so its pid cannot have been reused meanwhile.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        thread.withLock { $0 }?.join()
    }

    /// Sleeps until `deadlineNs` on the monotonic clock; false when woken by `stop()` first.
    private func sleep(until deadlineNs: UInt64) -> Bool {
        while true {
            let now = MonotonicClock.nowNs()
            if now >= deadlineNs { return true }
            var descriptor = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            let waitMs = Int32(clamping: (deadlineNs - now + 999_999) / 1_000_000)
            if poll(&descriptor, 1, waitMs) > 0 { return false }
        }
    }
}
