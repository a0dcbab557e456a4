import CLagmonLinux
import Glibc

/// A POSIX thread running one closure, which can be joined (Foundation's Thread cannot).
final class JoinableThread: @unchecked Sendable {
    private var handle = pthread_t()
    private var joined = false

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept).
    init(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let box = Unmanaged.passRetained(Box(name: name, body: body))
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
    }

    /// Waits for the closure to return.
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(handle, nil)
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
