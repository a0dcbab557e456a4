import CLagmonLinux
import Glibc
import Synchronization

/// Notices, within microseconds, when processes lagmon did not start (the target's descendants)
/// end: one thread polls their pidfds (readable once a process has exited, even one lagmon cannot
/// `waitid` for). Owns the pidfds and a wake-up pipe; `stop()` releases them.
final class ProcessExitWatcher: Sendable {
    /// Called on the watcher thread with the pid of a process that ended.
    typealias ExitHandler = @Sendable (Int32) -> Void

    private let pending = Mutex<[Int32]>([])
    private let stopping = Atomic<Bool>(false)
    /// The wake-up pipe; nil when it could not be made (then `start()` throws).
    private let wake: (read: Int32, write: Int32)?
    private let thread = WorkerThread()
    /// The processes watched and their pidfds: the watcher thread's.
    private let watched = ThreadOwned<[(pid: Int32, descriptor: Int32)]>([])

    init() {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            wake = nil
            return
        }
        wake = (descriptors[0], descriptors[1])
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        }
    }

    deinit {
        // The thread held `self`: it has returned.
        watched.claim()
        for item in watched.value { close(item.descriptor) }
        if let wake {
            close(wake.read)
            close(wake.write)
        }
    }

    /// Starts the watcher thread, which calls `onExit` with each process that ended.
    func start(onExit: @escaping ExitHandler) throws {
        guard let wake else { throw SystemError("pipe") }
        try thread.start(name: "lagmon-procs") { [self] in
            watched.claim()
            run(wake: wake.read, onExit: onExit)
        }
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
        thread.join()
    }

    private func poke() {
        guard let wake else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func run(wake: Int32, onExit: ExitHandler) {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            for pid in pending.withLock({ queue in
                defer { queue.removeAll() }; return queue
            }) {
                let descriptor = lagmon_pidfd_open(pid)
                if descriptor < 0 {
                    onExit(pid)
                } else {
                    watched.value.append((pid, descriptor))
                }
            }
            var polled = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            polled += watched.value.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 || errno == EINTR else { return }
            drainWakeups(wake)
            let ended = Set(polled.indices.dropFirst().filter { polled[$0].revents != 0 }.map { $0 - 1 })
            let current = watched.value
            for index in ended.sorted() {
                close(current[index].descriptor)
                onExit(current[index].pid)
            }
            watched.value = current.indices.filter { !ended.contains($0) }.map { current[$0] }
        }
    }

    private func drainWakeups(_ wake: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wake, &buffer, buffer.count) > 0 {}
    }
}
