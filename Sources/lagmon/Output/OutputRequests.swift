// What each option group asks the output sink to write, and where (the sink checks the paths).

extension OutputOptions {
    /// The JSON report's output, for the output sink.
    var outputRequests: [OutputSink.Request] {
        jsonPath.map { [OutputSink.Request(option: "--json", what: "the JSON report", path: $0)] } ?? []
    }
}

extension CIOutputOptions {
    /// The JUnit, Markdown and GitLab outputs, for the output sink (which checks the paths).
    var outputRequests: [OutputSink.Request] {
        [
            ("--junit", "the JUnit report", junitPath), ("--summary-md", "the Markdown summary", summaryPath),
            ("--gitlab-codequality", "the GitLab code quality report", gitlabPath),
        ]
        .compactMap { option, what, path in path.map { OutputSink.Request(option: option, what: what, path: $0) } }
    }
}

extension ExportOptions {
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
