import Foundation
import Testing

/// The HTML report opened in headless Chromium (Debian's `chromium`, installed by
/// scripts/install-deps): its script runs without errors, it has one mark per stall, and a
/// screenshot shows a rendered page.
@Suite(.serialized)
struct HTMLChromiumTests {
    /// Runs chromium headless on `page` with extra `arguments`; console messages go to stderr.
    static func chromium(_ arguments: [String], page: String) throws -> ToolRun {
        let profile = temporaryPath("chromium-profile")
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let result = try ToolRun.run(
            [
                "timeout", "60", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--user-data-dir=\(profile)", "--enable-logging=stderr", "--v=0",
            ] + arguments + ["file://" + page])
        if result.status == 127 {
            throw ToolFailure(description: "chromium is not installed: run scripts/install-deps (make test does)")
        }
        return result
    }

    @Test func theReportRendersWithoutScriptErrorsAndAMarkPerStall() throws {
        let run = try ExportRun.get()
        let dom = try Self.chromium(["--dump-dom"], page: run.html)
        #expect(dom.status == 0, "\(dom.stderr.suffix(800))")
        let consoleErrors = dom.stderr.split(separator: "\n").filter {
            $0.contains(":CONSOLE") && ($0.contains("Uncaught") || $0.contains("Error"))
        }
        #expect(consoleErrors.isEmpty, "\(consoleErrors)")
        // The script's last statement ran: nothing threw before it.
        #expect(dom.text.contains("data-ready=\"yes\""))
        let marks = dom.text.components(separatedBy: "<rect class=\"stall kind-").count - 1
        #expect(marks == run.report.stalls.count)
        for stall in run.report.stalls { #expect(dom.text.contains("data-stall=\"\(stall.id)\"")) }
        #expect(dom.text.contains("id=\"flame-all\""))
    }

    @Test func aScreenshotShowsTheRenderedPage() throws {
        let run = try ExportRun.get()
        let png = run.directory + "/report.png"
        let shot = try Self.chromium(
            ["--screenshot=\(png)", "--window-size=1280,1600", "--hide-scrollbars"], page: run.html)
        #expect(shot.status == 0, "\(shot.stderr.suffix(800))")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        // A blank 1280×1600 page compresses to a few kilobytes; charts and flame graphs do not.
        #expect(bytes.count > 40_000, "screenshot is \(bytes.count) bytes")
    }
}
