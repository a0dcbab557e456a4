import Glibc

/// Runs a symbolizer program once, bounded: feeds it `input` on stdin, collects its stdout, and
/// kills it at the deadline or when its output passes the limit. The child gets default signal
/// dispositions and an empty mask (lagmon blocks signals in all its threads), stderr on
/// /dev/null, and no other descriptor (every lagmon descriptor is close-on-exec).
///
/// Sockets, not pipes, carry stdin and stdout: `send(MSG_NOSIGNAL)` to a child that died is an
/// EPIPE error instead of a SIGPIPE that would end lagmon.
struct SymbolizerSubprocess {
    /// Why a run gave no (complete) output.
    enum Failure: Error, Equatable {
        /// posix_spawn failed (not found, not executable): the tool is unusable.
        case spawn(Int32)
        /// Socket or poll failure.
        case system(String, Int32)
        /// The deadline passed; the child was killed. What it wrote so far is kept.
        case timedOut(partial: [UInt8])
        /// It wrote more than the limit; the child was killed.
        case outputTooLarge
        /// It exited with a non-zero status or a signal (its output may still be usable).
        case exited(status: Int32, output: [UInt8])
    }

    let executable: String
    let arguments: [String]
    let environment: [String]
    /// The whole run, spawn to exit.
    let timeoutNs: UInt64
    /// The most stdout bytes accepted.
    let outputLimit: Int

    /// Runs the program to completion (or the deadline) and returns its stdout.
    func run(input: [UInt8]) -> Result<[UInt8], Failure> {
        var stdinPair: [Int32] = [-1, -1]
        var stdoutPair: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &stdinPair) == 0 else { return .failure(.system("socketpair", errno)) }
        defer { stdinPair.filter { $0 >= 0 }.forEach { close($0) } }
        guard socketpair(AF_UNIX, type, 0, &stdoutPair) == 0 else { return .failure(.system("socketpair", errno)) }
        defer { stdoutPair.filter { $0 >= 0 }.forEach { close($0) } }

        let pid: pid_t
        switch spawn(stdin: stdinPair[1], stdout: stdoutPair[1]) {
        case .success(let spawned): pid = spawned
        case .failure(let failure): return .failure(failure)
        }
        // The child holds its ends now; closing ours lets EOF through.
        close(stdinPair[1])
        close(stdoutPair[1])
        stdinPair[1] = -1
        stdoutPair[1] = -1
        let deadline = SymbolizerDeadline(timeoutNs: timeoutNs, pid: pid)
        let exchanged = exchange(input: input, stdin: &stdinPair[0], stdout: stdoutPair[0], deadline: deadline)
        defer { HelperProcesses.reaped(pid) }
        return finish(pid: pid, exchanged: exchanged, deadline: deadline)
    }

    private func spawn(stdin: Int32, stdout: Int32) -> Result<pid_t, Failure> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var empty = sigset_t()
        var all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var result: Int32 = 0
        // Recorded as lagmon's own before anyone can name it (HelperProcesses).
        let pid = HelperProcesses.start {
            var pid = pid_t()
            result = Self.withCStrings([executable] + arguments) { argv in
                Self.withCStrings(environment) { envp in
                    posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
                }
            }
            return result == 0 ? pid : -1
        }
        return result == 0 ? .success(pid) : .failure(.spawn(result))
    }

    /// Writes `input` and reads stdout until EOF, the deadline, or the output limit.
    private func exchange(input: [UInt8], stdin: inout Int32, stdout: Int32, deadline: SymbolizerDeadline) -> Result<
        [UInt8], Failure
    > {
        var output: [UInt8] = []
        var written = 0
        if input.isEmpty { closeStdin(&stdin) }
        while true {
            let now = SymbolizerClock.nowNs()
            guard !deadline.passed(at: now) else { return .failure(.timedOut(partial: output)) }
            var fds = [pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)]
            if stdin >= 0 { fds.append(pollfd(fd: stdin, events: Int16(POLLOUT), revents: 0)) }
            // At most 100 ms at a time: the deadline moves while the child waits for a CPU.
            let waitMs = Int32(clamping: min((max(deadline.baseNs, now + 1) - now + 999_999) / 1_000_000, 100))
            let ready = poll(&fds, nfds_t(fds.count), waitMs)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return .failure(.system("poll", errno)) }
            if fds.count > 1, fds[1].revents != 0 {
                guard sendInput(input, written: &written, to: stdin) else {
                    closeStdin(&stdin)  // it stopped reading: whatever it wrote still counts
                    continue
                }
                if written == input.count { closeStdin(&stdin) }
            }
            if fds[0].revents != 0 {
                switch receive(from: stdout, into: &output) {
                case .some(true): continue
                case .some(false): return .success(output)  // EOF
                case .none: return .failure(.system("recv", errno))
                }
            }
            if output.count > outputLimit { return .failure(.outputTooLarge) }
        }
    }

    /// Sends what the socket takes now; false when the child closed its end.
    private func sendInput(_ input: [UInt8], written: inout Int, to stdin: Int32) -> Bool {
        let sent = input.withUnsafeBytes { bytes in
            guard let start = bytes.baseAddress else { return 0 }
            return send(stdin, start + written, bytes.count - written, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if sent > 0 { written += sent }
        return sent >= 0 || errno == EAGAIN || errno == EINTR
    }

    /// Appends what is readable; true to go on, false at EOF, nil on error.
    private func receive(from stdout: Int32, into output: inout [UInt8]) -> Bool? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(stdout, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count > 0 {
            output.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 { return false }
        return errno == EAGAIN || errno == EINTR ? true : nil
    }

    private func closeStdin(_ stdin: inout Int32) {
        guard stdin >= 0 else { return }
        close(stdin)
        stdin = -1
    }

    /// Reaps the child: waits for it until the deadline after a clean exchange, kills it at once
    /// otherwise. The child is always reaped before this returns.
    private func finish(pid: pid_t, exchanged: Result<[UInt8], Failure>, deadline: SymbolizerDeadline) -> Result<
        [UInt8], Failure
    > {
        guard case .success(let output) = exchanged else {
            killAndReap(pid)
            return exchanged
        }
        while !deadline.passed(at: SymbolizerClock.nowNs()) {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                return status == 0 ? .success(output) : .failure(.exited(status: status, output: output))
            }
            if result < 0 && errno != EINTR { return .success(output) }  // reaped elsewhere
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
        }
        killAndReap(pid)
        return .failure(.timedOut(partial: output))
    }

    /// Calls `body` with a NULL-terminated C array of `strings` (as LagmonLinux's launcher does;
    /// symbolization does not depend on process control).
    private static func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
    ) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }

    private func killAndReap(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
