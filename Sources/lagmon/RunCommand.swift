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

    @Flag(
        name: .customLong("no-preload"),
        help: "Do not inject the LD_PRELOAD probe (for programs that link LagmonAgent).")
    var noPreload = false

    @OptionGroup var output: OutputOptions

    @OptionGroup(title: "Loops") var loopOptions: LoopOptions

    @OptionGroup(title: "Sampling") var sampling: SamplingOptions

    @OptionGroup(title: "Budgets") var budgets: BudgetOptions

    @OptionGroup(title: "CI output") var ci: CIOutputOptions

    @OptionGroup(title: "Pictures and exports") var exports: ExportOptions

    @Argument(
        parsing: .captureForPassthrough,
        help: ArgumentHelp("The program to run and its arguments, after --.", valueName: "command"))
    var command: [String] = []

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
            throw ValidationError("unknown option '\(first)'; see lagmon run --help (the program to run goes after --)")
        }
        try exports.checkStdout(sharedWithJSON: output.jsonPath)
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let preload = PreloadLibrary.locate(environment: environment)
        if preload == nil && !noPreload {
            let explicit = environment["LAGMON_PRELOAD_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
            throw ExitStatus.Failure(
                message: explicit.map {
                    "LAGMON_PRELOAD_LIBRARY names \(QuotedText.printable($0, limit: 200)), which cannot be read; point it at \(PreloadLibrary.fileName) or unset it"
                }
                    ?? "cannot find \(PreloadLibrary.fileName) next to the lagmon binary; rebuild with 'make build' or set LAGMON_PRELOAD_LIBRARY",
                status: ExitStatus.internalFailure)
        }
        let budgetList = try budgets.load()
        let barrier = noPreload ? nil : PreloadBarrier.detect(command: targetCommand[0], path: environment["PATH"])
        var options = RunOptions(
            command: targetCommand, settings: threshold.settings(sampling), preloadLibrary: noPreload ? nil : preload,
            loops: try loopOptions.selection(), followChildren: loopOptions.followChildren)
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
        let session = RunSession(options: options)
        let recording = try LiveView.during(session, output: output) { try session.run() }
        let gate = try SessionOutputs(
            output: output, exports: exports, ci: ci, budgets: budgetList, budgetsGiven: !budgets.isEmpty
        )
        .emit(recording)
        throw ExitCode(ExitStatus.afterRun(targetStatus: recording.exit?.passThroughStatus ?? 0, gate: gate))
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
