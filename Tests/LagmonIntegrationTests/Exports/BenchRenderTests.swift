import Foundation
import LagmonTestSupport
import Testing

/// `make bench` measures into docs/benchmarks.json (scripts/bench measure) and renders
/// docs/benchmarks.md from it (scripts/bench render): the committed page is what the renderer makes
/// of the committed numbers, and only the page's marked sections are the renderer's.
struct BenchRenderTests {
    static let root = Binaries.packageRoot

    @Test func theCommittedPageIsWhatTheRendererMakesOfTheCommittedNumbers() throws {
        let committed = try String(contentsOfFile: Self.root + "/docs/benchmarks.md", encoding: .utf8)
        // A stale row inside the section is replaced; a line outside it stays as written.
        let stale = committed.replacingOccurrences(of: "| Culprit hit rate |", with: "| A stale row |")
        #expect(stale != committed)
        let rendered = try Self.render(stale + "A line after the section.\n")
        #expect(rendered.status == 0, "\(rendered.output)")
        #expect(rendered.page == committed + "A line after the section.\n")
    }

    @Test func aPageWithoutTheSectionMarkersIsRefused() throws {
        let rendered = try Self.render("# Benchmarks\n\nNo markers here.\n")
        #expect(rendered.status != 0)
        #expect(rendered.output.contains("<!-- begin bench -->"), "\(rendered.output)")
        #expect(rendered.page == "# Benchmarks\n\nNo markers here.\n")
    }

    /// Runs scripts/bench render on the committed JSON and a copy of `page`; its status, output and
    /// the page afterwards.
    static func render(_ page: String) throws -> (status: Int32, output: String, page: String) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lagmon-bench-render-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("benchmarks.md").path
        try page.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try ToolRun.run([
            "python3", root + "/scripts/bench", "render", root + "/docs/benchmarks.json", path,
        ])
        return (run.status, run.output, try String(contentsOfFile: path, encoding: .utf8))
    }
}
