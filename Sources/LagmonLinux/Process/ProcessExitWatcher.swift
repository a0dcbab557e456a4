import CLagmonLinux
import Glibc
import Synchronization

/// Notices, within microseconds, when processes lagmon did not start (the target's descendants)
/// end: one thread polls their pidfds (readable once a process has exited, even one lagmon cannot
/// `waitid` for). Owns the pidfds and a wake-up pipe; `stop()` releases them.
final class ProcessExitWatcher: @unchecked Sendable {
    /// Called on the watcher thread with the pid of a process that ended.
    typealias ExitHandler = @Sendable (Int32) -> Void

    private let onExit: ExitHandler
    private let pending = Mutex<[Int32]>([])
    private let stopping = Atomic<Bool>(false)
    private var wake: (read: Int32, write: Int32) = (-1, -1)
    private var thread: JoinableThread?
    // Owned by the watcher thread until join() returns.
    private var watched: [(pid: Int32, descriptor: Int32)] = []

    init(onExit: @escaping ExitHandler) {
        self.onExit = onExit
    }

    deinit {
        for item in watched { close(item.descriptor) }
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    func start() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else { throw SystemError("pipe") }
        wake = (descriptors[0], descriptors[1])
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        }
        thread = try JoinableThread(name: "lagmon-procs") { [self] in run() }
    }

    /// Starts watching `pid`; a process already gone is reported at once.
    func watch(_ pid: Int32) {
        pending.withLock { $0.append(pid) }
        poke()
    }

    /// Stops the thread; processes still running are no longer watched.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        poke()
        thread?.join()
    }

    private func poke() {
        guard wake.write >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func run() {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            for pid in pending.withLock({ queue in
                defer { queue.removeAll() }; return queue
            }) {
                let descriptor = lagmon_pidfd_open(pid)
                if descriptor < 0 {
                    onExit(pid)
                } else {
                    watched.append((pid, descriptor))
                }
            }
            var polled = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            polled += watched.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { return }
            drainWakeups()
            let ended = Set(polled.indices.dropFirst().filter { polled[$0].revents != 0 }.map { $0 - 1 })
            for index in ended.sorted() {
                close(watched[index].descriptor)
                onExit(watched[index].pid)
            }
            watched = watched.indices.filter { !ended.contains($0) }.map { watched[$0] }
        }
    }

    private func drainWakeups() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &buffer, buffer.count) > 0 {}
    }
}
