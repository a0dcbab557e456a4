import Glibc
import LagmonCore

/// The two /proc files the /proc probe reads of one thread, `syscall` and `schedstat`, opened once
/// and re-read from offset 0 (the kernel regenerates them on every read): 1–3 µs per file
/// instead of 6–8 with a path lookup each time. Owns both descriptors.
///
/// The kernel checks ptrace access to the thread when `syscall` is opened (its mode is 0400, so
/// another user gets EACCES) and again on every read (EPERM, for example under Yama).
final class ProcLoopFiles {
    /// Why the files could not be opened or read.
    enum Failure: Error, Equatable {
        /// The thread (or its process) does not exist, or has exited.
        case gone
        /// Access refused: `code` is EACCES or EPERM, `path` the file refused.
        case notPermitted(path: String, code: Int32)
        /// Anything else.
        case other(SystemError)
    }

    let pid: Int32
    let tid: Int32
    private let syscallDescriptor: Int32
    private let schedstatDescriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 512)

    /// Opens the thread's files and takes one reading, so a refusal shows here rather than later.
    init(pid: Int32, tid: Int32) throws(Failure) {
        self.pid = pid
        self.tid = tid
        syscallDescriptor = try Self.open(ProcFS.taskPath(pid: pid, tid: tid, "syscall"))
        do {
            schedstatDescriptor = try Self.open(ProcFS.taskPath(pid: pid, tid: tid, "schedstat"))
        } catch {
            close(syscallDescriptor)
            throw error
        }
        _ = try read(clock: { 0 })
    }

    deinit {
        close(syscallDescriptor)
        close(schedstatDescriptor)
    }

    /// One reading, stamped with `clock` before and after the `syscall` file was read. The
    /// schedstat is read only for a thread in a wait call (the /proc probe uses it to see an
    /// iteration between two such readings).
    func read(clock: () -> UInt64) throws(Failure) -> ProcLoopReading {
        let beganNs = clock()
        let count = try readIntoBuffer(syscallDescriptor, path: "syscall")
        let endedNs = clock()
        // Garbled text cannot happen for a file read whole; read it as busy, the safe side.
        var state = ProcLoopReading.state(ofSyscallText: buffer[0..<count]) ?? .busy
        if state == .resuming { state = resumedState() }
        var schedstat: ProcSchedstat?
        if state == .waiting, let length = try? readIntoBuffer(schedstatDescriptor, path: "schedstat") {
            schedstat = ProcSchedstat.parse(Array(buffer[0..<length]))
        }
        return ProcLoopReading(state: state, beganNs: beganNs, endedNs: endedNs, schedstat: schedstat)
    }

    /// The state of a thread in `restart_syscall` (a stop interrupted its call): `waiting` when
    /// the kernel function it sleeps in (`wchan`) is an event-loop wait's, else `resuming` (the
    /// probe then keeps the previous state). Only read after a stack sample, so rarely.
    private func resumedState() -> ProcLoopReading.State {
        let path = ProcFS.taskPath(pid: pid, tid: tid, "wchan")
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .resuming }
        defer { close(descriptor) }
        let length = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard length > 0 else { return .resuming }
        return ProcLoopReading.state(ofRestartedWaitChannel: buffer[0..<length])
    }

    /// pread at offset 0 into the reused buffer; returns the length read.
    private func readIntoBuffer(_ descriptor: Int32, path: String) throws(Failure) -> Int {
        do {
            return try buffer.withUnsafeMutableBytes { bytes in
                try retryingInterrupts("read") { pread(descriptor, bytes.baseAddress, bytes.count, 0) }
            }
        } catch {
            throw Self.failure(error, path: ProcFS.taskPath(pid: pid, tid: tid, path))
        }
    }

    private static func open(_ path: String) throws(Failure) -> Int32 {
        do {
            return try retryingInterrupts("open") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        } catch {
            throw failure(error, path: path)
        }
    }

    private static func failure(_ error: any Error, path: String) -> Failure {
        let code = (error as? SystemError)?.code ?? EIO
        return switch code {
        case ENOENT, ESRCH: .gone
        case EACCES, EPERM: .notPermitted(path: path, code: code)
        default: .other(SystemError("read \(path)", code: code))
        }
    }
}
