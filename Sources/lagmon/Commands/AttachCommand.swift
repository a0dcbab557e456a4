import ArgumentParser
import LagmonCore
import LagmonLinux

/// `lagmon attach [options] PID`
struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Watch a running process's event loop for stalls, from outside.",
        discussion: """
            Nothing is injected: lagmon reads the watched thread's current system call from /proc \
            every --probe-interval. Outside an event-loop wait call (epoll_wait, poll, select and \
            their variants) the loop is busy; a busy period longer than the threshold is a stall, \
            its stack sampled as with run. With --name or --pid-file and no --duration (nor \
            --once), the process's exit does not end the session: lagmon looks every second for \
            the process that replaces it and watches that one too, and the report covers them all \
            (target.restarts, one processes entry each). Ctrl-C (SIGINT, SIGTERM), --duration or the \
            process's exit ends the session (SIGHUP too, unless --json PATH is given: then it \
            writes a numbered report snapshot and watching goes on; see --report-every); the process keeps running, untraced. Needs ptrace \
            access: root or CAP_SYS_PTRACE, or the process's user with \
            /proc/sys/kernel/yama/ptrace_scope at 0 (docs/attach.md). \(ExitStatus.attachHelpText)
            """)

    @Argument(help: ArgumentHelp("The process to watch (or give --pid-file).", valueName: "pid"))
    var pid: Int32?

    @Option(
        name: .customLong("pid-file"),
        help: ArgumentHelp(
            "Watch the process whose decimal pid this file holds (a regular file of at most 64 bytes).",
            valueName: "path"),
        completion: .file())
    var pidFile: String?

    @Option(
        name: .customLong("name"),
        help: ArgumentHelp(
            "Watch the one process with this name: its kernel name (comm, as pgrep NAME and ps -o comm show it) equal to it, whole, or for a name longer than the 15 bytes the kernel keeps, its first 15 bytes and argv[0]'s last component. No match: status 127; several: 64.",
            valueName: "name"))
    var name: String?

    @Flag(
        name: .customLong("once"),
        help: "With --name or --pid-file: end when the process exits, instead of waiting for the one that replaces it.")
    var once = false

    @Option(
        name: .customLong("report-every"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Also write a snapshot of the JSON report this often, numbered next to the --json path (report.json: report.0001.json, report.0002.json, ...); SIGHUP writes one at once.",
            valueName: "duration"),
        transform: DurationArgument.parse)
    var reportEvery: DurationArgument?

    @Option(
        name: .customLong("keep"),
        help: ArgumentHelp("How many report snapshots to keep; older ones are deleted.", valueName: "n"))
    var keep = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "End the session after this long (default: at Ctrl-C or when the process exits).", valueName: "duration"),
        transform: DurationArgument.parse)
    var duration: DurationArgument?

    @Option(
        name: .customLong("thread"),
        help: ArgumentHelp(
            "The thread whose loop to watch: main (the default), a thread id, or a thread name.",
            valueName: "tid|name"))
    var thread = "main"

    @OptionGroup var threshold: ThresholdOption

    @Option(
        name: .customLong("probe-interval"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Time between /proc readings of the watched thread: stall times are within half of it (default: 1ms).",
            valueName: "duration"),
        transform: DurationArgument.parse)
    var probeInterval = DurationArgument(nanoseconds: ProcProbeSettings.defaultIntervalNs)

    @OptionGroup var output: OutputOptions

    @OptionGroup var sessionOptions: SessionOptions

    func validate() throws {
        switch [pid != nil, pidFile != nil, name != nil].filter({ $0 }).count {
        case 0: throw ValidationError("give the pid of the process to watch, --pid-file PATH or --name NAME")
        case 1: break
        default: throw ValidationError("give one of a pid, --pid-file PATH and --name NAME")
        }
        if let pid, pid <= 0 { throw ValidationError("invalid pid \(pid): give the id of a running process") }
        if let name, name.isEmpty || name.utf8.count > 4096 || name.contains("\0") {
            throw ValidationError("--name takes a process name (as ps -o comm shows it)")
        }
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        if let reportEvery {
            guard reportEvery.nanoseconds >= 10_000_000 else {
                throw ValidationError("--report-every must be 10ms or more")
            }
            guard let json = output.jsonPath, json != "-" else {
                throw ValidationError("--report-every numbers snapshots after the report's file; give --json PATH too")
            }
        }
        _ = try sessionOptions.sink(output)
        guard duration.map({ $0.nanoseconds > 0 }) ?? true else {
            throw ValidationError("--duration must be longer than 0")
        }
        guard (100_000...100_000_000).contains(probeInterval.nanoseconds) else {
            throw ValidationError("--probe-interval must be between 100us and 100ms")
        }
        guard probeInterval.nanoseconds < threshold.threshold.nanoseconds else {
            throw ValidationError("--probe-interval must be shorter than --threshold, or stalls cannot be timed")
        }
        guard !thread.isEmpty, thread != "*" else {
            throw ValidationError("--thread takes one thread: main, a thread id, or a thread name")
        }
    }

    /// `main`, a number (a thread id), or a name.
    private var threadSelector: ThreadSelector {
        if thread == "main" { return .main }
        if let tid = Int32(thread), tid > 0 { return .tid(tid) }
        return .name(thread)
    }

    /// Where the process comes from.
    private var source: AttachTargetSource {
        if let pidFile { return .pidFile(pidFile) }
        if let name { return .name(name) }
        return .pid(pid ?? 0)
    }

    /// Whether the session outlives the process, waiting for the one that replaces it.
    private var followsRestarts: Bool {
        source.findsRestarts && duration == nil && !once
    }

    func run() throws {
        // Before any thread starts (the metrics endpoint's, the live view's): a stop signal
        // delivered to a thread that does not block it would kill lagmon without its report.
        StopSignals.block()
        let sink = try sessionOptions.sink(output)
        let budgetList = try sessionOptions.budgets.load()
        let source = self.source
        let selector = threadSelector
        let target = try source.resolve(thread: selector)
        let metrics = try SessionMetrics.prepare(sessionOptions.metrics, thresholdNs: threshold.threshold.nanoseconds)
        var options = attachOptions(target)
        options.onStall = metrics?.onStall
        if followsRestarts {
            options.nextTarget = { source.next(after: $0, thread: selector) }
            options.onRestart = { [quiet = output.quiet] change in
                guard !quiet else { return }
                StandardError.say(restartLine(change, source: source))
            }
        }
        if let json = output.jsonPath, json != "-" {
            let snapshots = ReportSnapshots(path: json, keep: keep)
            options.onSnapshot = { snapshots.write($0) }
            options.snapshotEveryNs = reportEvery?.nanoseconds
        }
        let session = AttachSession(options: options)
        try metrics?.start { session.liveSnapshot() }
        let outcome = try LiveView.during(progress: { session.progress() }, output: output) {
            try session.run {
                guard !output.quiet else { return }
                if let line = metrics?.listeningLine { StandardError.say(line) }
                StandardError.say(attachedLine(target))
            }
        }
        if !output.quiet, let line = Self.endingLine(outcome.ending, target: target) { StandardError.say(line) }
        let gate = try sessionOptions.outputs(output, sink: sink, budgets: budgetList).emit(outcome.recording)
        metrics?.finish(outcome.recording) { StandardError.say($0) }
        throw ExitCode(ExitStatus.afterRun(targetStatus: 0, gate: gate))
    }

    private func attachOptions(_ target: AttachTarget) -> AttachOptions {
        var options = AttachOptions(
            target: target, settings: threshold.settings(sessionOptions.sampling),
            probeIntervalNs: probeInterval.nanoseconds,
            durationNs: duration?.nanoseconds)
        options.threadSelection = thread
        return options
    }

    /// The line saying watching has begun (tests and scripts wait for it).
    private func attachedLine(_ target: AttachTarget) -> String {
        let name = QuotedText.printable(target.name, limit: 15)
        let thread = QuotedText.printable(target.thread.name, limit: 15)
        let until = duration.map { "for \(DurationText.format(nanoseconds: $0.nanoseconds)) or " } ?? ""
        return
            "attached to pid \(target.pid) (\(name)), watching thread \(target.thread.tid) \"\(thread)\" from /proc every \(DurationText.format(nanoseconds: probeInterval.nanoseconds)), \(until)until Ctrl-C"
    }

    /// Says that the process exited and lagmon waits for another, or found it.
    private func restartLine(_ change: AttachSession.Restart, source: AttachTargetSource) -> String {
        switch change {
        case .exited(let target):
            "process \(target.pid) (\(QuotedText.printable(target.name, limit: 15))) exited; waiting for a new process \(source.description), looking every second"
        case .attached(let target): "re-" + attachedLine(target)
        }
    }

    /// Says why the session ended, when it was not the expected way.
    private static func endingLine(_ ending: AttachSession.Ending, target: AttachTarget) -> String? {
        switch ending {
        case .threadExited: "thread \(target.thread.tid) exited; the process still runs"
        case .unreadable: "the process's thread can no longer be read (it may have executed a setuid program)"
        case .signal, .duration, .processExited: nil
        }
    }
}
