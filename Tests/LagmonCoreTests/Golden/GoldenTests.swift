import Foundation
import LagmonCore
import Testing

/// Every output lagmon writes, rendered from saved recordings (GoldenRecordings) and compared
/// byte for byte with the files committed under Tests/Goldens/<case>/. A change to any output
/// fails here; when the change is meant, regenerate the files and commit them with it:
///
///     LAGMON_UPDATE_GOLDENS=1 swift test --filter GoldenTests
///
/// (then review `git diff Tests/Goldens`). The reports are also read back from their JSON, as
/// `lagmon report` does, and must render the same bytes again.
struct GoldenTests {
    /// Set to regenerate the golden files instead of comparing with them.
    static let updating = ProcessInfo.processInfo.environment["LAGMON_UPDATE_GOLDENS"].map { !$0.isEmpty } ?? false

    /// Tests/Goldens, found from this file's path.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("Tests/Goldens")
    }()

    /// Report renderings by file name (the summary without colours, as on a pipe).
    static let reportOutputs: [(file: String, writer: any ReportWriter)] = [
        ("report.json", JSONReportWriter()),
        ("summary.txt", TerminalSummaryWriter(style: TerminalStyle(colors: false))),
        ("stalls.folded", FoldedStacksWriter()),
        ("report.html", HTMLReportWriter()),
        ("stalls.speedscope.json", SpeedscopeWriter()),
        ("trace.json", ChromeTraceWriter()),
        ("stalls.pb", PprofWriter()),
    ]

    /// Verdict renderings by file name.
    static let gateOutputs: [(file: String, writer: any GateWriter)] = [
        ("verdict.txt", GateTextWriter(style: TerminalStyle(colors: false))),
        ("verdict-quiet.txt", GateTextWriter(style: TerminalStyle(colors: false), verdictOnly: true)),
        ("junit.xml", JUnitWriter()),
        ("summary.md", MarkdownSummaryWriter()),
        ("annotations.txt", GitHubAnnotationWriter()),
        ("codequality.json", GitLabCodeQualityWriter()),
    ]

    /// Every output of `golden`, by file name.
    static func outputs(_ golden: GoldenCase) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let report = try golden.report()
        if golden.baseline == nil {
            for output in reportOutputs { files[output.file] = try output.writer.render(report) }
        }
        if let verdict = golden.verdict(of: report) {
            for output in gateOutputs { files[output.file] = try output.writer.render(verdict) }
        }
        return files
    }

    @Test(arguments: GoldenCase.all)
    func outputsMatchTheGoldenFiles(_ golden: GoldenCase) throws {
        let folder = Self.root.appendingPathComponent(golden.name)
        let outputs = try Self.outputs(golden)
        if Self.updating {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (file, bytes) in outputs { try Data(bytes).write(to: folder.appendingPathComponent(file)) }
            return
        }
        let committed = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        #expect(
            committed == Set(outputs.keys),
            "Tests/Goldens/\(golden.name) holds other files than the outputs; regenerate with LAGMON_UPDATE_GOLDENS=1")
        for (file, bytes) in outputs.sorted(by: { $0.key < $1.key }) {
            let expected = (try? Data(contentsOf: folder.appendingPathComponent(file))).map { [UInt8]($0) }
            #expect(
                expected == bytes,
                "\(golden.name)/\(file) differs from the golden file: \(Self.firstDifference(expected ?? [], bytes))")
        }
    }

    /// `lagmon report REPORT.json` renders from the JSON it reads back: the same bytes again.
    @Test(arguments: GoldenCase.all.filter { $0.baseline == nil })
    func savedReportsRenderTheSameBytes(_ golden: GoldenCase) throws {
        let report = try golden.report()
        let reread = try JSONReportWriter.decode(try JSONReportWriter().render(report))
        for output in Self.reportOutputs {
            let again = try output.writer.render(reread)
            let first = try output.writer.render(report)
            #expect(again == first, "\(golden.name)/\(output.file): \(Self.firstDifference(first, again))")
        }
    }

    /// Where two renderings part: the line number and both lines.
    static func firstDifference(_ expected: [UInt8], _ actual: [UInt8]) -> String {
        let old = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let new = String(decoding: actual, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let line = zip(old, new).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
            return "\(expected.count) bytes expected, \(actual.count) rendered"
        }
        return "line \(line + 1): expected \(old[line].prefix(300)) — rendered \(new[line].prefix(300))"
    }
}
