import Foundation

/// A program the test starts itself (not under lagmon), for `lagmon attach` to attach to: its
/// stdin and stdout are pipes the test talks through. Killed and reaped when released.
final class WatchedProgram {
    let pid: pid_t
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()
    private var stdoutSoFar = Data()
    private var reaped = false

    init(_ argv: [String]) throws {
        pid = try spawnWithCleanSignals(
            argv, environment: ProcessInfo.processInfo.environment,
            stdio: (
                stdinPipe.fileHandleForReading.fileDescriptor, stdoutPipe.fileHandleForWriting.fileDescriptor,
                FileHandle.standardError.fileDescriptor
            ))
        try? stdinPipe.fileHandleForReading.close()
        try? stdoutPipe.fileHandleForWriting.close()
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
    }

    /// Reads stdout until a line containing `marker` arrives; returns that line.
    func waitForLine(containing marker: String) -> String? {
        while true {
            if let line = lines.first(where: { $0.contains(marker) }) { return line }
            let chunk = stdoutPipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            stdoutSoFar.append(chunk)
        }
    }

    /// Everything read from stdout so far, line by line.
    var lines: [String] { String(decoding: stdoutSoFar, as: UTF8.self).split(separator: "\n").map(String.init) }

    /// Reads stdout to its end (the program exited or closed it).
    func readToEnd() {
        stdoutSoFar.append(stdoutPipe.fileHandleForReading.readDataToEndOfFile())
    }

    /// Writes a line to its stdin.
    func send(line: String) {
        stdinPipe.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Reaps it; returns its exit status (128 + N for signal N).
    @discardableResult
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        reaped = true
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// A field of /proc/<pid>/status (`State`, `TracerPid`), nil when the process is gone.
    func status(_ field: String) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let prefix = field + ":\t"
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// Whether it runs, neither stopped nor traced: state R, S or D, and no tracer.
    var runsUntraced: Bool {
        guard let state = status("State")?.first, let tracer = status("TracerPid") else { return false }
        return "RSD".contains(state) && tracer == "0"
    }
}
