import ArgumentParser

/// The pictures and export formats a report can be written as; shared by `run` and `report`.
struct ExportOptions: ParsableArguments {
    @Option(
        name: .customLong("html"),
        help: ArgumentHelp(
            "Write a self-contained HTML report (timeline, CPU per thread, searchable flame graphs) to PATH.",
            valueName: "path"),
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
            "Write stalls with their stack samples, long iterations and CPU as Trace Event JSON (Perfetto, Chrome DevTools) to PATH.",
            valueName: "path"),
        completion: .file())
    var chromeTracePath: String?

    @Option(
        name: .customLong("pprof"),
        help: ArgumentHelp("Write the stall samples as a gzipped pprof profile to PATH.", valueName: "path"),
        completion: .file())
    var pprofPath: String?
}
