import Glibc
import Synchronization

/// Takes SIGINT, SIGTERM, SIGHUP and SIGQUIT for the whole of lagmon's life: before a program
/// is started they end lagmon as their default action would; while it runs they are passed on to
/// it, so lagmon never dies before the target and always gets to write its report; after it
/// exited they are held while lagmon finishes.
///
/// lagmon blocks these signals first thing in `main` (`takeOver()`), so every thread it or a
/// library starts inherits the block, and one thread takes them with sigtimedwait. (Blocking
/// them only when the program started left the threads started before — the metrics server's —
/// with an empty mask: a SIGTERM killed lagmon and orphaned the program.) Signals a terminal
/// generated (si_code SI_KERNEL, e.g. ^C) already reached a target that still shares lagmon's
/// process group, so they are not sent twice; one that left it (setsid, its own job) gets them
/// forwarded like any other.
public final class SignalForwarder: Sendable {
    /// The forwarded signals.
    public static let forwarded = ForwardedSignals.all
    /// The one taker of the process's signals.
    public static let shared = SignalForwarder()

    private enum Mode {
        /// No program yet: a signal ends lagmon.
        case endLagmon
        /// A program is being started: signals are kept, and sent to it once its pid is known
        /// (`start(forwardingTo:)`). Ending lagmon then would orphan a program that already runs
        /// (on a busy machine it printed its first line before lagmon had its pid in hand).
        case starting(pending: [PendingSignal])
        /// A program runs: signals go to it.
        case forward(pid_t)
        /// The program exited, leaving descendants lagmon follows (`--follow-children`): signals go
        /// to them, as the closure lists them now.
        case followed(@Sendable () -> [pid_t])
        /// The program exited: signals are taken and dropped while lagmon finishes.
        case hold
    }

    /// A signal taken while the program was being started.
    private struct PendingSignal {
        var signal: Int32
        var fromTerminal: Bool
    }

    private let mode = Mutex<Mode>(.endLagmon)
    /// The signals this thread takes (another taker may be given some: `yield(_:)`).
    private let taken = Mutex<Set<Int32>>(Set(SignalForwarder.forwarded))
    /// The signal mask lagmon started with, once the signals are blocked.
    private let startMask = Mutex<sigset_t?>(nil)
    private let thread = WorkerThread()
    /// Signals received so far, forwarded or not, in order.
    public let received = Mutex<[Int32]>([])

    private init() {}

    /// Blocks the forwarded signals in the calling thread, and so in every thread started after,
    /// and starts taking them. Call it first thing in `main`.
    public static func takeOver() {
        _ = shared.startTaking()
    }

    /// Blocks the forwarded signals (`takeOver()`) and returns the mask lagmon started with,
    /// which the target must get back.
    public static func blockForwardedSignals() -> sigset_t {
        shared.startTaking()
    }

    /// Keeps the signals that come from now on until the program being started has a pid
    /// (`start(forwardingTo:)`) or could not start (`startFailed()`). Call it before the spawn.
    public func holdForStart() {
        _ = startTaking()
        mode.withLock { $0 = .starting(pending: []) }
    }

    /// Starts forwarding to `pid`, first the signals kept while it was being started.
    public func start(forwardingTo pid: pid_t) throws {
        _ = startTaking()
        let pending = mode.withLock { mode -> [PendingSignal] in
            defer { mode = .forward(pid) }
            if case .starting(let pending) = mode { return pending }
            return []
        }
        for kept in pending { Self.forward(kept.signal, to: pid, fromTerminal: kept.fromTerminal) }
    }

    /// The program could not be started: a signal kept meanwhile ends lagmon as it would have
    /// before (`endLagmon`); later ones do too.
    public func startFailed() {
        let pending = mode.withLock { mode -> [PendingSignal] in
            defer { mode = .endLagmon }
            if case .starting(let pending) = mode { return pending }
            return []
        }
        if let first = pending.first { Self.endLagmon(by: first.signal) }
    }

    /// Stops forwarding: the target has exited (but is not reaped yet, so its pid cannot be
    /// reused while a forward is in flight). Signals from now on are held.
    public func stop() {
        mode.withLock { $0 = .hold }
    }

    /// Forwards to the descendants `followed` lists (lagmon's adopted children, not reaped, so
    /// their pids cannot be reused meanwhile): the target has exited and lagmon waits for them.
    public func forward(toFollowed followed: @escaping @Sendable () -> [pid_t]) {
        mode.withLock { $0 = .followed(followed) }
    }

    /// Leaves `signals` to another taker (`lagmon attach` ends its session on them,
    /// `StopSignals`); the others keep their treatment here. One this thread takes from now on,
    /// in a wait that began before, is sent to the process again for that taker.
    public func yield(_ signals: [Int32]) {
        taken.withLock { $0.subtract(signals) }
    }

    private func startTaking() -> sigset_t {
        startMask.withLock { mask in
            if let mask { return mask }
            var set = Self.signalSet(Self.forwarded)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &set, &previous)
            do {
                try thread.start(name: "lagmon-signals") { [self] in run() }
            } catch {
                // Nobody could take them: leave them to their default actions.
                pthread_sigmask(SIG_SETMASK, &previous, nil)
                return previous
            }
            mask = previous
            return previous
        }
    }

    private func run() {
        var info = siginfo_t()
        while true {
            var set = Self.signalSet(Array(taken.withLock { $0 }))
            var timeout = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            let signal = sigtimedwait(&set, &info, &timeout)
            guard signal > 0 else { continue }
            // Yielded while this wait was already asleep with the old set (`lagmon attach`
            // yields its stop signals a few milliseconds after lagmon starts): the other taker's.
            // Ending lagmon here would kill a session whose ^C came right after it attached. Sent
            // to the process again, it stays pending until that taker's next wait; this wait's
            // next set no longer holds it.
            guard taken.withLock({ $0.contains(signal) }) else {
                kill(getpid(), signal)
                continue
            }
            received.withLock { $0.append(signal) }
            let fromTerminal = info.si_code == SI_KERNEL
            let current = mode.withLock { $0 }
            switch current {
            case .endLagmon: Self.endLagmon(by: signal)
            case .starting:
                let forwarding = mode.withLock { mode -> pid_t? in
                    switch mode {
                    case .starting(var pending):
                        pending.append(PendingSignal(signal: signal, fromTerminal: fromTerminal))
                        mode = .starting(pending: pending)
                        return nil
                    case .forward(let pid): return pid
                    default: return nil
                    }
                }
                if let forwarding { Self.forward(signal, to: forwarding, fromTerminal: fromTerminal) }
            case .forward(let pid): Self.forward(signal, to: pid, fromTerminal: fromTerminal)
            case .followed(let followed):
                for pid in followed() where !(fromTerminal && getpgid(pid) == getpgrp()) { kill(pid, signal) }
            case .hold: continue
            }
        }
    }

    /// Sends `signal` to `pid`, unless a terminal generated it (`fromTerminal`) and `pid` still
    /// shares lagmon's process group: the terminal already sent it there.
    private static func forward(_ signal: Int32, to pid: pid_t, fromTerminal: Bool) {
        guard !(fromTerminal && getpgid(pid) == getpgrp()) else { return }
        kill(pid, signal)
    }

    /// Ends lagmon as `signal`'s default action would (the shell sees it killed by it): its
    /// default action restored, unblocked in this thread, raised.
    private static func endLagmon(by signal: Int32) -> Never {
        Glibc.signal(signal, SIG_DFL)
        var set = signalSet([signal])
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signal)
        _exit(128 + signal)
    }

    private static func signalSet(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }
}
