import CLagmonLinux
import Glibc
import LagmonCore

/// Asks a running HotSpot JVM to write its perf map (`/tmp/perf-<pid>.map`), as `jcmd PID
/// Compiler.perfmap` does, through the JDK's attach mechanism (OpenJDK's
/// `attachListener_linux.cpp` and `sun.tools.attach.VirtualMachineImpl`): when the JVM's socket
/// `/tmp/.java_pid<pid>` is missing, create the trigger file `/tmp/.attach_pid<pid>` and send
/// SIGQUIT, which makes the JVM start its attach listener instead of printing a thread dump;
/// then connect and send the protocol version, `jcmd` and its arguments, each ended by a NUL,
/// and read the reply, whose first line is the result (0: done).
///
/// Everything is in the target's `/tmp` through `/proc/<pid>/root`, with the pid the JVM knows
/// itself by (NSpid), so a JVM in a container works. The target is not trusted: SIGQUIT is sent
/// only to a process that maps `libjvm.so` and catches SIGQUIT (`-Xrs` leaves it fatal), never
/// when `-XX:+DisableAttachMechanism` is in its command line; the socket must be a socket (not a
/// symlink) owned by the target's user, and the process at its other end must be the target
/// (SO_PEERCRED) before anything is written; every step is non-blocking and bounded by one
/// deadline; the reply is read up to 64 KiB. The trigger file lagmon made is removed at once.
public enum JVMAttach {
    /// What a request left behind that lagmon caused, to remove when the session ends.
    public struct Request: Sendable, Equatable {
        /// The JVM (lagmon's pid for it).
        public var pid: Int32
        /// The pid the JVM knows itself by (its namespace's).
        public var nsPid: Int32
        /// Whether lagmon started the JVM's attach listener (its socket is lagmon's doing).
        public var startedListener: Bool
        /// Whether the perf map existed before lagmon's first request (then it is the user's).
        public var mapExisted: Bool
        /// Whether the JVM shares lagmon's mount namespace (its /tmp is lagmon's once it exited).
        public var sharesTmp: Bool
    }

    /// Why a request failed, said in one line.
    public struct Failure: Error, Sendable, Equatable {
        public var reason: String
    }

    /// Longest wait for the listener to start and for the reply, together.
    public static let timeoutNs: UInt64 = 1_000_000_000
    /// Most bytes of the reply read.
    static let maxReplyBytes = 65_536

    /// Whether `map` (a process's) is a HotSpot JVM's: it maps `libjvm.so`.
    public static func isJVM(_ map: ProcessMemoryMap) -> Bool {
        map.mappings.contains { $0.path.hasSuffix("/libjvm.so") }
    }

    /// Asks JVM `pid` to write its perf map; returns what lagmon caused, or why it could not.
    public static func requestPerfMap(pid: Int32, timeoutNs: UInt64 = timeoutNs) -> Result<Request, Failure> {
        let deadlineNs = MonotonicClock.nowNs() &+ timeoutNs
        guard let target = JVMProcess.read(pid: pid) else { return .failure(Failure(reason: "process gone")) }
        guard let tmp = JVMTmpDirectory(pid: pid) else {
            return .failure(Failure(reason: "its /tmp cannot be opened"))
        }
        defer { tmp.close() }
        let mapExisted = tmp.exists("perf-\(target.nsPid).map")
        let socketName = ".java_pid\(target.nsPid)"
        var started = false
        if !tmp.isSocket(socketName, ownedBy: target.uid) {
            if let refusal = target.refusal { return .failure(Failure(reason: refusal)) }
            switch startListener(target, tmp: tmp, socketName: socketName, deadlineNs: deadlineNs) {
            case .failure(let failure): return .failure(failure)
            case .success: started = true
            }
        }
        let request = Request(
            pid: pid, nsPid: target.nsPid, startedListener: started, mapExisted: mapExisted,
            sharesTmp: target.sharesMountNamespace)
        return JVMAttachConnection.run(
            tmp: tmp, socketName: socketName, pid: pid, command: ["jcmd", "Compiler.perfmap", "", ""],
            deadlineNs: deadlineNs
        ).map { _ in request }
    }

    /// Creates the trigger file, sends SIGQUIT and waits (polling) for the socket; removes the
    /// trigger file it created whatever happens.
    private static func startListener(
        _ target: JVMProcess, tmp: JVMTmpDirectory, socketName: String, deadlineNs: UInt64
    )
        -> Result<Void, Failure>
    {
        let trigger = ".attach_pid\(target.nsPid)"
        let created = tmp.createEmpty(trigger)
        defer { if created { tmp.remove(trigger) } }
        guard created || tmp.exists(trigger) else {
            return .failure(Failure(reason: "cannot create \(trigger) in its /tmp"))
        }
        guard kill(target.pid, SIGQUIT) == 0 else { return .failure(Failure(reason: "SIGQUIT refused")) }
        var pauseNs: UInt64 = 2_000_000
        while MonotonicClock.nowNs() < deadlineNs {
            if tmp.isSocket(socketName, ownedBy: target.uid) { return .success(()) }
            var pause = timespec(tv_sec: 0, tv_nsec: Int(pauseNs))
            nanosleep(&pause, nil)
            pauseNs = min(pauseNs * 2, 50_000_000)
        }
        return .failure(Failure(reason: "its attach listener did not start in time"))
    }

    /// Removes what `request` left that lagmon caused: the perf map (unless it was there before)
    /// and, once the JVM has exited, the socket of a listener lagmon started. Returns the paths
    /// removed (as lagmon reaches them).
    @discardableResult
    public static func clean(_ request: Request, exited: Bool) -> [String] {
        let own = request.sharesTmp ? JVMTmpDirectory(pid: getpid()) : nil
        guard let tmp = JVMTmpDirectory(pid: request.pid) ?? own else { return [] }
        defer { tmp.close() }
        var removed: [String] = []
        let map = "perf-\(request.nsPid).map"
        if !request.mapExisted, tmp.isRegularFile(map), tmp.remove(map) { removed.append(tmp.path + "/" + map) }
        let socket = ".java_pid\(request.nsPid)"
        if exited, request.startedListener, tmp.isSocket(socket, ownedBy: nil), tmp.remove(socket) {
            removed.append(tmp.path + "/" + socket)
        }
        return removed
    }
}
