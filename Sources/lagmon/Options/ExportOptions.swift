import ArgumentParser

/// The pictures and export formats a report can be written as; shared by `run` and `report`.
struct ExportOptions: ParsableArguments {
    @Option(
        name: .customLong("html"),
        help: ArgumentHelp(
            "Write a self-contained HTML report (timeline, CPU per thread, flame graphs) to PATH.", valueName: "path"),
        completion: .file())
    var htmlPath: String?

    @Option(
        name: .customLong("folded"),
        help: ArgumentHelp(
            "Write the stall samples as folded stacks (flamegraph.pl, inferno) to PATH.", valueName: "path"),
        completion: .file())
    var foldedPath: String?

    @Option(
        name: .customLong("speedscope"),
        help: ArgumentHelp("Write the stall samples as a speedscope profile to PATH.", valueName: "path"),
        completion: .file())
    var speedscopePath: String?

    @Option(
        name: .customLong("chrome-trace"),
        help: ArgumentHelp(
            "Write stalls, long iterations and CPU as Trace Event JSON (Perfetto, chrome://tracing) to PATH.",
            valueName: "path"),
        completion: .file())
    var chromeTracePath: String?

    @Option(
        name: .customLong("pprof"),
        help: ArgumentHelp("Write the stall samples as a gzipped pprof profile to PATH.", valueName: "path"),
        completion: .file())
    var pprofPath: String?

    /// Each requested export: its option, path and format.
    var requested: [(option: String, path: String, format: ExportFormat)] {
        let all: [(String, String?, ExportFormat)] = [
            ("--html", htmlPath, .html), ("--folded", foldedPath, .folded),
            ("--speedscope", speedscopePath, .speedscope),
            ("--chrome-trace", chromeTracePath, .chromeTrace), ("--pprof", pprofPath, .pprof),
        ]
        return all.compactMap { option, path, format in path.map { (option, $0, format) } }
    }

    /// Each requested export's output, for the output sink (which checks the paths).
    var outputRequests: [OutputSink.Request] {
        requested.map { OutputSink.Request(option: $0.option, what: "the \($0.option) output", path: $0.path) }
    }
}
