import CLagmonLinux
import Glibc
import Synchronization

/// A POSIX thread running one closure, which can be joined (Foundation's Thread cannot).
final class JoinableThread: Sendable {
    private let handle: pthread_t
    private let joined = Atomic<Bool>(false)

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept).
    init(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let box = Unmanaged.passRetained(Box(name: name, body: body))
        var handle = pthread_t()
        let result = pthread_create(
            &handle, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                lagmon_set_thread_name(box.name)
                // Whatever the creator's mask: only the forwarding thread takes these.
                var forwarded = sigset_t()
                sigemptyset(&forwarded)
                for signal in ForwardedSignals.all { sigaddset(&forwarded, signal) }
                pthread_sigmask(SIG_BLOCK, &forwarded, nil)
                box.body()
                return nil
            }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw SystemError("pthread_create", code: result)
        }
        self.handle = handle
    }

    /// Waits for the closure to return (once: later calls return at once).
    func join() {
        guard !joined.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pthread_join(handle, nil)
    }

    /// Waits at most `timeoutNs` for the closure to return: true once it has (the thread is
    /// joined), false while it still runs. Only from the one thread that joins (not beside
    /// `join()`).
    func join(withinNs timeoutNs: UInt64) -> Bool {
        if joined.load(ordering: .acquiring) { return true }
        guard lagmon_thread_join_within(handle, timeoutNs) == 0 else { return false }
        joined.store(true, ordering: .releasing)
        return true
    }

    private final class Box {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
