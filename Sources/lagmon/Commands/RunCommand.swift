import ArgumentParser
import FoundationEssentials
import LagmonCore
import LagmonLinux

/// `lagmon run [options] -- <cmd> [args…]`
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Start a program and watch its event loops for stalls.",
        discussion: """
            The program runs with its own arguments, environment and stdio; lagmon adds an \
            LD_PRELOAD probe that observes its main CFRunLoop, and any thread that waits repeatedly \
            in epoll_wait, poll or select (asyncio, libuv, GLib, plain epoll loops; --loops says \
            which are watched). SIGINT, SIGTERM, SIGHUP and \
            SIGQUIT are forwarded. At exit lagmon prints a summary on stderr and exits with the \
            program's status. With budgets (--budget, --warn, --budget-file) it ends with a PASS or \
            FAIL verdict line; under GitHub Actions it also writes annotations and the step summary \
            (docs/ci.md). \(ExitStatus.helpText)
            """)

    @OptionGroup var threshold: ThresholdOption

    @Option(
        help: ArgumentHelp(
            "Stop the program after this long: SIGTERM, then SIGKILL if it still runs after --kill-after (default: let it run).",
            valueName: "duration"),
        transform: DurationArgument.parse)
    var duration: DurationArgument?

    @Option(
        name: .customLong("kill-after"),
        help: ArgumentHelp(
            "With --duration: how long the program may take to exit after SIGTERM before SIGKILL (default: 5s).",
            valueName: "duration"),
        transform: DurationArgument.parse)
    var killAfter = DurationArgument(nanoseconds: 5_000_000_000)

    @Flag(
        name: .customLong("no-preload"),
        help: "Do not inject the LD_PRELOAD probe (for programs that link LagmonAgent).")
    var noPreload = false

    @Flag(
        name: .customLong("no-jit-maps"),
        help: ArgumentHelp(
            "Do not turn on node's perf map, which names JavaScript frames (lagmon adds --perf-basic-prof-only-functions --interpreted-frames-native-stack to NODE_OPTIONS and removes the map at exit)."
        ))
    var noJitMaps = false

    @Flag(
        name: .customLong("no-strict"),
        help: ArgumentHelp(
            "Do not count blocking calls on loop threads (StrictMode: file I/O, DNS, blocking connect, sleeps, waiting for children, shells; counted by the preload probe)."
        ))
    var noStrict = false

    @OptionGroup var output: OutputOptions

    @OptionGroup(title: "Loops") var loopOptions: LoopOptions

    @OptionGroup var sessionOptions: SessionOptions

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("The program to run and its arguments, after --.", valueName: "command"),
        completion: .shellCommand(Self.commandCompletion))
    var command: [String] = []

    /// Bash completion of the program after `--` (a command on PATH, or a path) and of its
    /// arguments (paths), as `sudo` and `time` complete theirs.
    static let commandCompletion = """
        __lagmon_i=0; for __lagmon_w in "${COMP_WORDS[@]::COMP_CWORD}"; do [[ $__lagmon_w == -- ]] && break;         ((__lagmon_i++)); done; if ((COMP_CWORD == __lagmon_i + 1)); then compgen -c -- "${cur}";         compgen -f -- "${cur}"; else compgen -f -- "${cur}"; fi
        """

    /// The command without the leading `--` separator.
    private var targetCommand: [String] { command.first == "--" ? Array(command.dropFirst()) : command }

    func validate() throws {
        // The pass-through capture also swallows a help request given before any program.
        if let first = command.first, ["-h", "--help", "-help"].contains(first) {
            throw CleanExit.helpRequest(RunCommand.self)
        }
        guard !targetCommand.isEmpty else {
            throw ValidationError("no command given; put the program to run after --, for example: lagmon run -- ./app")
        }
        // Without "--", the first word that looks like an option is a mistyped lagmon option,
        // not a program name.
        if command.first != "--", let first = command.first, first.hasPrefix("-") {
            let hint = Self.closestOption(to: first).map { "did you mean '\($0)'? " } ?? ""
            throw ValidationError(
                "unknown option '\(first)'; \(hint)see lagmon run --help (the program to run goes after --)")
        }
        _ = try sessionOptions.sink(output)
    }

    func run() throws {
        let sink = try sessionOptions.sink(output)
        let environment = ProcessInfo.processInfo.environment
        let preload = PreloadLibrary.locate(environment: environment)
        if preload == nil && !noPreload {
            let explicit = environment["LAGMON_PRELOAD_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
            throw ExitStatus.Failure(
                message: explicit.map {
                    "LAGMON_PRELOAD_LIBRARY names \(QuotedText.printable($0, limit: 200)), which cannot be read; point it at \(PreloadLibrary.fileName) or unset it"
                }
                    ?? "cannot find \(PreloadLibrary.fileName) next to the lagmon binary or in ../lib/lagmon; reinstall lagmon, rebuild with 'make build', or set LAGMON_PRELOAD_LIBRARY",
                status: ExitStatus.internalFailure)
        }
        let loadable = noPreload ? nil : try preload.map { try Self.loadable($0, environment: environment) }
        defer { loadable?.remove() }
        let budgetList = try sessionOptions.budgets.load()
        let barrier = noPreload ? nil : PreloadBarrier.detect(command: targetCommand[0], path: environment["PATH"])
        var options = RunOptions(
            command: targetCommand, settings: threshold.settings(sessionOptions.sampling),
            preloadLibrary: loadable?.path,
            loops: try loopOptions.selection(), followChildren: loopOptions.followChildren)
        options.durationNs = duration?.nanoseconds
        options.jitMaps = !noJitMaps
        options.strict = !noStrict
        options.killGraceNs = killAfter.nanoseconds
        options.onDeadline = Self.deadlineNotice(duration: duration, killAfter: killAfter, program: targetCommand[0])
        if let barrier {
            options.preloadLibrary = nil
            options.procProbe = ProcProbeSettings(
                intervalNs: ProcProbeSettings.defaultIntervalNs, reason: "the target is \(barrier.description)")
            if !output.quiet {
                let ignored =
                    ([.automatic, .mainThreads].contains(options.loops) ? [] : ["--loops"])
                    + (loopOptions.followChildren ? ["--follow-children"] : [])
                StandardError.say(Self.fallbackNotice(targetCommand[0], barrier, ignoring: ignored))
            }
        }
        let metrics = try SessionMetrics.prepare(sessionOptions.metrics, thresholdNs: threshold.threshold.nanoseconds)
        options.onStall = metrics?.onStall
        let session = RunSession(options: options)
        try metrics?.start { session.liveSnapshot() }
        if !output.quiet, let line = metrics?.listeningLine { StandardError.say(line) }
        let recording = try LiveView.during(session, output: output) { try session.run() }
        let gate = try sessionOptions.outputs(output, sink: sink, budgets: budgetList).emit(recording)
        metrics?.finish(recording) { StandardError.say($0) }
        throw ExitCode(ExitStatus.afterRun(targetStatus: recording.exit?.passThroughStatus ?? 0, gate: gate))
    }

    /// The probe at a path every target image can load (LoadablePreload), or 125.
    private static func loadable(_ library: String, environment: [String: String]) throws -> LoadablePreload {
        do {
            return try LoadablePreload(library: library, environment: environment)
        } catch {
            throw ExitStatus.Failure(
                message:
                    "cannot copy the probe \(QuotedText.printable(library, limit: 200)) to a path every user can load: \(error); install lagmon under a world-readable path without spaces or colons, or set LAGMON_PRELOAD_LIBRARY to one",
                status: ExitStatus.internalFailure)
        }
    }

    /// The lines saying what `--duration` did to the program (always said, even with --quiet: the
    /// program's exit status is lagmon's doing).
    static func deadlineNotice(duration: DurationArgument?, killAfter: DurationArgument, program: String)
        -> @Sendable (TargetDeadline.Step) -> Void
    {
        let name = QuotedText.printable(PathText.lastComponent(program), limit: 120)
        let limit = DurationText.format(nanoseconds: duration?.nanoseconds ?? 0)
        let grace = DurationText.format(nanoseconds: killAfter.nanoseconds)
        return { step in
            switch step {
            case .terminated: StandardError.say("--duration \(limit) reached: sent SIGTERM to \(name)")
            case .killed: StandardError.say("\(name) still ran \(grace) after SIGTERM: sent SIGKILL")
            }
        }
    }

    /// The option of `run` closest to a mistyped one (`--jsn` → `--json`), read off the options
    /// the command defines (its help text lists each).
    static func closestOption(to typed: String) -> String? {
        Suggestion.closestOption(to: typed, inHelp: helpMessage())
    }

    /// The one line saying a static or setuid target is watched from /proc instead.
    static func fallbackNotice(_ program: String, _ barrier: PreloadBarrier, ignoring options: [String] = []) -> String
    {
        let name = QuotedText.printable(PathText.lastComponent(program), limit: 120)
        let ignored =
            options.isEmpty
            ? "" : "; only its main thread is watched (\(options.joined(separator: " and ")) cannot apply)"
        return
            "\(name) is \(barrier.description); LD_PRELOAD cannot enter it, watching it from /proc instead (less precise: see docs/attach.md)\(ignored)"
    }
}
