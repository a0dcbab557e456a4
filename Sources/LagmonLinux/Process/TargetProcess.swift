import CLagmonLinux
import Glibc
import LagmonCore
import Synchronization

/// The monitored program: spawned with its own argv, environment and stdio (exactly the
/// descriptors 0–2 lagmon got, closed ones closed), plus the channel and the preload library.
public final class TargetProcess: Sendable {
    /// Why a target could not start.
    public enum LaunchError: Error, Equatable, CustomStringConvertible {
        /// No such file, or nothing by that name on PATH.
        case notFound(String)
        /// The file exists but cannot be executed.
        case notExecutable(String, reason: String)
        /// A script whose `#!` interpreter does not exist.
        case missingInterpreter(String, interpreter: String)
        /// Anything else.
        case failed(String, SystemError)

        public var description: String {
            switch self {
            case .notFound(let command) where command.contains("/"):
                "command not found: \(command); no such file, check the path"
            case .notFound(let command):
                "command not found: \(command); check the name, or give a path (for example ./\(command))"
            case .notExecutable(let command, let reason):
                "cannot execute \(command): \(reason); check that it is an executable file (chmod +x)"
            case .missingInterpreter(let command, let interpreter):
                "cannot execute \(command): its interpreter \(interpreter) (the #! line) does not exist; install it or correct the #! line"
            case .failed(let command, let error):
                "cannot start \(command): \(error)"
            }
        }
    }

    /// The target's pid.
    public let pid: pid_t
    private let reaped = Atomic<Bool>(false)

    /// Spawns `command`. `environment` replaces the inherited one; `inheritedDescriptor` stays
    /// open in the target (it is close-on-exec in lagmon); `signalMask` is the mask the target
    /// starts with.
    public init(command: [String], environment: [String], inheritedDescriptor: Int32, signalMask: sigset_t) throws {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        // dup2 onto itself clears FD_CLOEXEC in the child only (glibc ≥ 2.29).
        posix_spawn_file_actions_adddup2(&actions, inheritedDescriptor, inheritedDescriptor)
        // A standard descriptor lagmon was started without is closed for the target too (lagmon
        // holds /dev/null there only so its own files cannot take the number).
        for fd in StandardDescriptors.closedAtStart { posix_spawn_file_actions_addclose(&actions, fd) }
        var mask = signalMask
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var spawned = pid_t()
        let result = withCStrings(command) { argv in
            withCStrings(environment) { envp in
                posix_spawnp(&spawned, argv[0]!, &actions, &attributes, argv, envp)
            }
        }
        switch result {
        case 0: pid = spawned
        case ENOENT, ENOTDIR:
            // The program exists but exec said ENOENT: its #! interpreter is what is missing.
            if let program = PreloadBarrier.locate(command[0], path: searchPath(in: environment)),
                let interpreter = Self.interpreter(of: program)
            {
                throw LaunchError.missingInterpreter(command[0], interpreter: interpreter)
            }
            throw LaunchError.notFound(command[0])
        case EACCES, ENOEXEC, EISDIR, EPERM:
            throw LaunchError.notExecutable(command[0], reason: String(cString: strerror(result)))
        default: throw LaunchError.failed(command[0], SystemError("posix_spawn", code: result))
        }
    }

    /// The interpreter a `#!` script names (its first word), when the script starts with `#!`.
    static func interpreter(of path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        guard count > 2, buffer[0] == UInt8(ascii: "#"), buffer[1] == UInt8(ascii: "!") else { return nil }
        let line = buffer[2..<count].prefix { $0 != UInt8(ascii: "\n") }
        let word = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            .prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard !word.isEmpty else { return nil }
        return QuotedText.printable(String(decoding: word, as: UTF8.self), limit: 200)
    }

    /// Blocks until the target exits, without reaping it (its pid stays reserved).
    ///
    /// lagmon also traces the target's threads while sampling, and a tracer's waitid reports
    /// ptrace stops whatever flags it passes; so the exit is awaited on a pidfd first, and stop
    /// reports still pending then are skipped (the sampler consumes them).
    public func waitForExit() throws -> TargetExit {
        let pidfd = lagmon_pidfd_open(pid)
        if pidfd >= 0 {
            defer { close(pidfd) }
            var poller = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            try retryingInterrupts("poll") { poll(&poller, 1, -1) }
        }
        while true {
            var info = siginfo_t()
            try retryingInterrupts("waitid") { waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) }
            let status = info._sifields._sigchld.si_status
            switch info.si_code {
            case Int32(CLD_EXITED): return .exited(status)
            case Int32(CLD_KILLED), Int32(CLD_DUMPED): return .signaled(status)
            default: sched_yield()
            }
        }
    }

    /// Reaps the exited target; its pid may be reused afterwards.
    public func reap() {
        guard !reaped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
}

/// The PATH value in a `NAME=value` environment list (posix_spawnp searches the caller's PATH,
/// which lagmon passes on unchanged).
private func searchPath(in environment: [String]) -> String? {
    environment.first { $0.hasPrefix("PATH=") }.map { String($0.dropFirst(5)) }
}

/// Calls `body` with a NULL-terminated C array of `strings`.
func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
