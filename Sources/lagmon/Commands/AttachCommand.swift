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
            its stack sampled as with run. Ctrl-C (SIGINT, SIGTERM, SIGHUP), --duration or the \
            process's exit ends the session; the process keeps running, untraced. Needs ptrace \
            access: root or CAP_SYS_PTRACE, or the process's user with \
            /proc/sys/kernel/yama/ptrace_scope at 0 (docs/attach.md). \(ExitStatus.attachHelpText)
            """)

    @Argument(help: ArgumentHelp("The process to watch.", valueName: "pid"))
    var pid: Int32

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

    @OptionGroup(title: "Sampling") var sampling: SamplingOptions

    @OptionGroup(title: "Budgets") var budgets: BudgetOptions

    @OptionGroup(title: "CI output") var ci: CIOutputOptions

    @OptionGroup(title: "Pictures and exports") var exports: ExportOptions

    @OptionGroup(title: "Metrics") var metricsOptions: MetricsOptions

    func validate() throws {
        guard pid > 0 else { throw ValidationError("invalid pid \(pid): give the id of a running process") }
        _ = try OutputSink(output: output, exports: exports, ci: ci)
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

    func run() throws {
        let sink = try OutputSink(output: output, exports: exports, ci: ci)
        let budgetList = try budgets.load()
        let target = try AttachTarget.resolve(pid: pid, thread: threadSelector)
        let metrics = try SessionMetrics.prepare(metricsOptions, thresholdNs: threshold.threshold.nanoseconds)
        var options = attachOptions(target)
        options.onStall = metrics?.onStall
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
        let gate = try SessionOutputs(
            output: output, exports: exports, ci: ci, sink: sink, budgets: budgetList, budgetsGiven: !budgets.isEmpty
        )
        .emit(outcome.recording)
        metrics?.finish(outcome.recording) { StandardError.say($0) }
        throw ExitCode(ExitStatus.afterRun(targetStatus: 0, gate: gate))
    }

    private func attachOptions(_ target: AttachTarget) -> AttachOptions {
        var options = AttachOptions(
            target: target, settings: threshold.settings(sampling), probeIntervalNs: probeInterval.nanoseconds,
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

    /// Says why the session ended, when it was not the expected way.
    private static func endingLine(_ ending: AttachSession.Ending, target: AttachTarget) -> String? {
        switch ending {
        case .threadExited: "thread \(target.thread.tid) exited; the process still runs"
        case .unreadable: "the process's thread can no longer be read (it may have executed a setuid program)"
        case .signal, .duration, .processExited: nil
        }
    }
}
