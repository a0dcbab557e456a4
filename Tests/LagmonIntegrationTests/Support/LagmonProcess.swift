import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// One run of the lagmon binary, with its output captured and its JSON report (validated
/// against docs/report.schema.json) decoded.
struct LagmonResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var report: Report?
    var reportJSON: [String: Any]?

    /// lagmon's own stderr lines (they all start with "lagmon:").
    var lagmonLines: [String] { stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("lagmon:") } }
}

/// A running lagmon, for tests that interact with it while it runs.
///
/// Spawned with posix_spawn and an empty signal mask: the test runner blocks most signals in
/// its threads, Foundation's Process would pass that mask on, and lagmon (faithfully) passes
/// its own on to the target, which would then never see a forwarded SIGINT.
final class LagmonProcess: @unchecked Sendable {
    let pid: pid_t
    let reportPath: String?
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let stdinPipe = Pipe()
    private var stdoutSoFar = Data()
    private var stderrSoFar = Data()

    /// Starts `lagmon <arguments>`; adds `--json <temp>` after the subcommand (`run` or `attach`)
    /// unless `json` is false.
    /// `wrapper` is a command lagmon is run under (for example setpriv).
    init(_ arguments: [String], json: Bool = true, environment: [String: String] = [:], wrapper: [String] = []) throws {
        var arguments = arguments
        if json, arguments.first == "run" || arguments.first == "attach" {
            let path = NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString).json"
            arguments.insert(contentsOf: ["--json", path], at: 1)
            reportPath = path
        } else {
            reportPath = nil
        }
        var env = ProcessInfo.processInfo.environment
        // The colour policy's variables come from each test, not from the runner's environment.
        for name in ["NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE"] { env.removeValue(forKey: name) }
        for (key, value) in environment { env[key] = value }
        // Foundation's pipes are not close-on-exec: lagmon, and the target it passes its
        // descriptors to, inherited every end of them, its own stdin's write end included. A
        // target then never saw end-of-file on stdin (BoundedPeerTests' `read line` held a loaded
        // run for 12 minutes, lagmon killed and the orphan holding stdout). The child gets its
        // 0, 1 and 2 from the dups below, which are not close-on-exec; nothing else.
        for pipe in [stdinPipe, stdoutPipe, stderrPipe] {
            for fd in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
                _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
            }
        }
        pid = try spawnWithCleanSignals(
            wrapper + [Binaries.lagmon] + arguments, environment: env,
            stdio: (
                stdinPipe.fileHandleForReading.fileDescriptor, stdoutPipe.fileHandleForWriting.fileDescriptor,
                stderrPipe.fileHandleForWriting.fileDescriptor
            ))
        // The child has its copies; close ours so end-of-file arrives when it exits.
        try? stdinPipe.fileHandleForReading.close()
        try? stdoutPipe.fileHandleForWriting.close()
        try? stderrPipe.fileHandleForWriting.close()
    }

    /// Writes to lagmon's stdin (which the target inherits) and keeps it open.
    func write(stdin text: String) {
        stdinPipe.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Writes to lagmon's stdin (which the target inherits) and closes it.
    func send(stdin text: String) {
        stdinPipe.fileHandleForWriting.write(Data(text.utf8))
        try? stdinPipe.fileHandleForWriting.close()
    }

    /// Reads stdout until a line containing `marker` arrives; returns that line. With
    /// `withinSeconds`, gives up (nil) when no such line came in time (a bound for tests of
    /// hangs, not a synchronisation delay).
    func waitForLine(containing marker: String, withinSeconds: Double? = nil) -> String? {
        let deadline = withinSeconds.map { Date().addingTimeInterval($0) }
        while true {
            if let line = String(decoding: stdoutSoFar, as: UTF8.self).split(separator: "\n").first(where: {
                $0.contains(marker)
            }) {
                return String(line)
            }
            if let deadline {
                var ready = pollfd(
                    fd: stdoutPipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
                let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
                if left == 0 || poll(&ready, 1, left) == 0 { return nil }
            }
            let chunk = stdoutPipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            stdoutSoFar.append(chunk)
        }
    }

    /// Reads stderr until a line containing `marker` arrives; returns that line.
    func waitForErrorLine(containing marker: String) -> String? {
        while true {
            if let line = String(decoding: stderrSoFar, as: UTF8.self).split(separator: "\n").first(where: {
                $0.contains(marker)
            }) {
                return String(line)
            }
            let chunk = stderrPipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            stderrSoFar.append(chunk)
        }
    }

    /// Waits up to `seconds` for lagmon to exit, reading its output meanwhile, then collects
    /// everything; nil when it did not exit in time. Then lagmon and every process it started
    /// are killed with SIGKILL: a hang fails the test, not the run. After lagmon exits, its
    /// output is read for 10 s at most (a process it left behind may hold the pipes).
    func finish(withinSeconds seconds: Double) throws -> LagmonResult? {
        let deadline = Date().addingTimeInterval(seconds)
        var open = [stdoutPipe.fileHandleForReading.fileDescriptor, stderrPipe.fileHandleForReading.fileDescriptor]
        var status: Int32 = 0
        var pipesDeadline: Date?
        while pipesDeadline == nil || !open.isEmpty {
            if pipesDeadline == nil, waitpid(pid, &status, WNOHANG) == pid {
                pipesDeadline = min(Date(), deadline).addingTimeInterval(10)
                continue
            }
            let limit = pipesDeadline ?? deadline
            guard Date() < limit else {
                if pipesDeadline != nil { break }
                killTree()
                readOutput(&open, until: Date().addingTimeInterval(10))
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                return nil
            }
            readOutput(&open, until: min(limit, Date().addingTimeInterval(0.05)))
        }
        return try finish(reapedStatus: status, drained: true)
    }

    /// lagmon's stderr so far (after a `finish(withinSeconds:)` that returned nil: all it wrote).
    var stderrSoFarText: String { String(decoding: stderrSoFar, as: UTF8.self) }

    /// SIGKILL to lagmon and to its descendants, found through /proc before any of them dies
    /// (a dead parent's children are re-parented out of reach); stopped first, so none forks
    /// meanwhile.
    private func killTree() {
        let tree = [pid] + ProcessTree.descendants(of: pid)
        for member in tree { kill(member, SIGSTOP) }
        for member in tree + ProcessTree.descendants(of: pid) { kill(member, SIGKILL) }
    }

    /// Reads stdout and stderr (those of `open` not yet ended) until both end or `deadline`
    /// passes; a descriptor that ends leaves `open`. With none open, sleeps until the deadline.
    private func readOutput(_ open: inout [Int32], until deadline: Date) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let left = Int32(deadline.timeIntervalSinceNow * 1000)
            guard left > 0 else { return }
            var ready = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&ready, nfds_t(ready.count), left) > 0 else { continue }
            for entry in ready where entry.revents != 0 {
                let count = Glibc.read(entry.fd, &buffer, buffer.count)
                if count <= 0 {
                    if count == 0 || errno != EINTR { open.removeAll { $0 == entry.fd } }
                } else if entry.fd == stdoutPipe.fileHandleForReading.fileDescriptor {
                    stdoutSoFar.append(contentsOf: buffer[..<count])
                } else {
                    stderrSoFar.append(contentsOf: buffer[..<count])
                }
            }
            if open.isEmpty { return }
        }
    }

    /// Waits for lagmon to exit and collects everything.
    func finish() throws -> LagmonResult {
        try finish(reapedStatus: nil, drained: false)
    }

    /// Collects the result; `drained`: the pipes were read already, as far as they will be.
    private func finish(reapedStatus: Int32?, drained: Bool) throws -> LagmonResult {
        try? stdinPipe.fileHandleForWriting.close()
        let rest = drained ? Data() : stdoutPipe.fileHandleForReading.readDataToEndOfFile()
        let errors = stderrSoFar + (drained ? Data() : stderrPipe.fileHandleForReading.readDataToEndOfFile())
        var status: Int32 = reapedStatus ?? 0
        if reapedStatus == nil { while waitpid(pid, &status, 0) == -1 && errno == EINTR {} }
        stdoutSoFar.append(rest)
        // Exit code, or 128+N for a signal, as a shell reports it.
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        var result = LagmonResult(
            status: exitStatus, stdout: String(decoding: stdoutSoFar, as: UTF8.self),
            stderr: String(decoding: errors, as: UTF8.self), report: nil, reportJSON: nil)
        if let reportPath, FileManager.default.fileExists(atPath: reportPath) {
            try ReportSchema.validate(path: reportPath)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: reportPath))
            result.report = try JSONReportWriter.decode(Array(bytes))
            result.reportJSON = try JSONSerialization.jsonObject(with: bytes) as? [String: Any]
            try? FileManager.default.removeItem(atPath: reportPath)
        }
        return result
    }

    /// How long `run` waits for lagmon: ten times the longest run any test makes on a loaded
    /// machine, so only a hang (lagmon's, or a fixture's) reaches it.
    static let runDeadlineSeconds: Double = 600

    /// A run that did not end by its deadline; lagmon and what it started were killed.
    struct Hung: Error, CustomStringConvertible {
        var arguments: [String]
        var seconds: Double
        var stderr: String
        var description: String {
            "lagmon \(arguments.joined(separator: " ")) did not end within \(Int(seconds)) s (killed with its "
                + "processes); its stderr: \(stderr.suffix(800))"
        }
    }

    /// Runs lagmon to completion, for at most `withinSeconds` (a hang throws `Hung`).
    static func run(
        _ arguments: [String], json: Bool = true, stdin: String? = nil, environment: [String: String] = [:],
        wrapper: [String] = [], withinSeconds seconds: Double = runDeadlineSeconds
    ) throws -> LagmonResult {
        let running = try LagmonProcess(arguments, json: json, environment: environment, wrapper: wrapper)
        running.send(stdin: stdin ?? "")
        guard let result = try running.finish(withinSeconds: seconds) else {
            throw Hung(arguments: arguments, seconds: seconds, stderr: running.stderrSoFarText)
        }
        return result
    }
}

/// Processes by parentage, from /proc.
enum ProcessTree {
    /// Every live descendant of `root` (children, their children, …), read from each process's
    /// stat; processes that end while it reads are skipped.
    static func descendants(of root: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the name (which may hold spaces and parentheses): state, then the parent.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = pid_t(fields[1]) else { continue }
            children[parent, default: []].append(pid)
        }
        var found: [pid_t] = []
        var next = [root]
        while let parent = next.popLast() {
            for child in children[parent] ?? [] where !found.contains(child) {
                found.append(child)
                next.append(child)
            }
        }
        return found
    }
}

/// Validates reports against the published schema with Python's jsonschema.
enum ReportSchema {
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static func validate(path: String) throws {
        let checker = Process()
        checker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        checker.arguments = [
            "python3", "-c",
            "import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])), format_checker=jsonschema.FormatChecker())",
            Binaries.packageRoot + "/docs/report.schema.json", path,
        ]
        let errors = Pipe()
        checker.standardError = errors
        try checker.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        checker.waitUntilExit()
        guard checker.terminationStatus == 0 else {
            throw Invalid(description: "report \(path) does not match docs/report.schema.json: \(message.suffix(600))")
        }
    }
}

/// How a stall lagmon measured agrees with a call a fixture timed itself.
enum StallDuration {
    /// The stall holds the whole call (the fixture's own clock; 1 ms for the two clocks' reading
    /// points), and at most 10 % more, plus 100 ms a loaded machine may keep the thread off the
    /// CPU between the call's end and the loop's next transition. Two stalls merged into one, or
    /// an idle wait counted as work, exceed it.
    static func holds(measuredNs: UInt64, injectedNs: UInt64) -> Bool {
        measuredNs + 1_000_000 >= injectedNs && measuredNs <= injectedNs + injectedNs / 10 + 100_000_000
    }
}

/// What the demo says it injected (its --truth file).
struct DemoTruth: Decodable {
    var function: String
    var startMonotonicNs: UInt64
    var durationNs: UInt64

    /// Whether a reported stall of `durationNs` is this injected one: it holds the whole
    /// injected call (the demo's own clock; 1 ms for the two clocks' reading points), and at most
    /// 10 % more, plus 100 ms a loaded machine may keep the thread off the CPU between the call's
    /// end and the loop's next transition.
    func fits(_ durationNs: UInt64) -> Bool {
        StallDuration.holds(measuredNs: durationNs, injectedNs: self.durationNs)
    }

    static func load(_ path: String) throws -> [DemoTruth] {
        try JSONDecoder().decode([DemoTruth].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString)-\(name)"
}

/// posix_spawn with an empty signal mask and default dispositions, and the given stdio.
func spawnWithCleanSignals(_ argv: [String], environment: [String: String], stdio: (Int32, Int32, Int32)) throws
    -> pid_t
{
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }
    posix_spawn_file_actions_adddup2(&actions, stdio.0, 0)
    posix_spawn_file_actions_adddup2(&actions, stdio.1, 1)
    posix_spawn_file_actions_adddup2(&actions, stdio.2, 2)
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal: Int32 in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let cArguments = argv.map { strdup($0) } + [nil]
    let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        cArguments.forEach { free($0) }
        cEnvironment.forEach { free($0) }
    }
    var pid = pid_t()
    let result = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
    guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
    return pid
}
