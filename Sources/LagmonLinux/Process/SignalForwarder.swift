import Glibc
import Synchronization

/// Passes SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to lagmon on to the target, so lagmon never
/// dies before the target and always gets to write its report.
///
/// lagmon blocks these signals in every thread (call `blockForwardedSignals()` before any other
/// thread starts) and a dedicated thread takes them with sigtimedwait. Signals a terminal
/// generated (si_code SI_KERNEL, e.g. ^C) already reached a target that still shares lagmon's
/// process group, so they are not sent twice; one that left it (setsid, its own job) gets them
/// forwarded like any other.
public final class SignalForwarder: @unchecked Sendable {
    /// The forwarded signals.
    public static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private let target = Mutex<pid_t?>(nil)
    private let stopping = Atomic<Bool>(false)
    private var thread: JoinableThread?
    /// Signals received so far, forwarded or not, in order.
    public let received = Mutex<[Int32]>([])

    /// Blocks the forwarded signals in the calling thread (and every thread it creates later).
    /// Returns the previous mask, which the target must get back.
    public static func blockForwardedSignals() -> sigset_t {
        var set = sigset_t()
        var previous = sigset_t()
        sigemptyset(&set)
        for signal in forwarded { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, &previous)
        return previous
    }

    public init() {}

    /// Starts forwarding to `pid`.
    public func start(forwardingTo pid: pid_t) throws {
        target.withLock { $0 = pid }
        thread = try JoinableThread(name: "lagmon-signals") { [self] in run() }
    }

    /// Stops forwarding: the target has exited (but is not reaped yet, so its pid cannot be
    /// reused while a forward is in flight).
    public func stop() {
        target.withLock { $0 = nil }
        stopping.store(true, ordering: .sequentiallyConsistent)
        thread?.join()
    }

    private func run() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in Self.forwarded { sigaddset(&set, signal) }
        var timeout = timespec(tv_sec: 0, tv_nsec: 50_000_000)
        var info = siginfo_t()
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let signal = sigtimedwait(&set, &info, &timeout)
            guard signal > 0 else { continue }
            received.withLock { $0.append(signal) }
            let fromTerminal = info.si_code == SI_KERNEL
            target.withLock { pid in
                guard let pid, !(fromTerminal && getpgid(pid) == getpgrp()) else { return }
                kill(pid, signal)
            }
        }
    }
}
