import Foundation
import LagmonTestSupport
import Testing

/// Headless Chromium, the HTML report's real consumer.
enum ChromiumBrowser {
    /// Whether `chromium` is on PATH: the only reason the HTML report's browser tests skip.
    static var installed: Bool {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return directories.contains { FileManager.default.isExecutableFile(atPath: "\($0)/chromium") }
    }
}

/// The HTML report opened in headless Chromium (Debian's `chromium`, installed by
/// scripts/install-deps): its script runs without errors, it has one mark per stall, and a
/// screenshot shows a rendered page. Tests/Fixtures/chromium/drive.py drives the browser over the
/// DevTools protocol (a real mouse drag across the timeline) and measures the laid-out page.
@Suite(
    .serialized,
    .enabled(if: ChromiumBrowser.installed, "chromium is not installed (scripts/install-deps installs it)"))
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

    /// Layout measured by drive.py (only the parts the tests read).
    struct Measured: Decodable {
        struct Box: Decodable {
            var left: Double
            var right: Double
            var width: Double
            var height: Double
            var label: String?
            var scrollWidth: Double?
            var clientWidth: Double?
            var title: String?
        }
        struct Axis: Decodable {
            var plot: Box
            var ticks: [Box]
        }
        var viewportWidth: Double
        var pageWidth: Double
        var pageHeight: Double
        var span: Double
        var fonts: [Double]
        var timeline: Axis?
        var cpu: Axis?
        var zoomText: String
        var culprits: [Box]
        var tables: [Box]
        var alerts: [Box]
        var stallRows: Int
        var visibleStallRows: Int
        var summaries: [String]
    }

    /// Opens `page` at `width` px (drive.py), with extra arguments (`--drag A B`, `--screenshot P`).
    static func drive(_ page: String, width: Int, _ extra: [String] = []) throws -> Measured {
        let script = Binaries.packageRoot + "/Tests/Fixtures/chromium/drive.py"
        let run = try ToolRun.run(["timeout", "90", "python3", script, page, String(width), "1000"] + extra)
        guard run.status == 0 else { throw ToolFailure(description: "drive.py failed: \(run.output.suffix(800))") }
        return try JSONDecoder().decode(Measured.self, from: run.stdout)
    }

    /// A tick label's time: `0.25s` → 0.25.
    static func seconds(_ label: String?) -> Double? {
        guard let label, label.hasSuffix("s") else { return nil }
        return Double(label.dropLast())
    }

    @Test func draggingTheTimelineZoomsBothAxesToTheDraggedRange() throws {
        let run = try ExportRun.get()
        let before = try Self.drive(run.html, width: 1400)
        let after = try Self.drive(run.html, width: 1400, ["--drag", "0.25", "0.5"])
        let span = after.span
        #expect(span > 0)
        let (start, end) = (span * 0.25, span * 0.5)
        // The drag lands on whole pixels: the range is the intended one within a few pixels' time.
        let pixel = span * 0.002
        let shown = after.zoomText.split(separator: " ").compactMap {
            Self.seconds(String($0.hasSuffix(".") ? $0.dropLast() : $0))
        }
        #expect(shown.count == 2 && after.zoomText.hasPrefix("Showing "), "\(after.zoomText)")
        #expect(abs((shown.first ?? 0) - start) <= pixel && abs((shown.last ?? 0) - end) <= pixel, "\(after.zoomText)")
        for axis in [after.timeline, after.cpu] {
            let axis = try #require(axis)
            let times = axis.ticks.compactMap { Self.seconds($0.label) }
            #expect(times.count == axis.ticks.count && times.count >= 3, "\(axis.ticks.map(\.label))")
            let slack = pixel
            for (time, tick) in zip(times, axis.ticks) {
                // Every label is a time in the zoomed range, drawn inside the plot.
                #expect(time >= start - slack && time <= end + slack, "\(tick.label ?? "") not in \(start)...\(end)")
                #expect(tick.left >= axis.plot.left - 0.5 && tick.right <= axis.plot.right + 0.5, "\(tick)")
            }
            // The labels cover the range: round steps, so the first and last are within a step of its ends.
            let step = (times.last ?? 0) - (times.first ?? 0)
            #expect(step >= (end - start) / 2, "\(times)")
        }
        // Before the drag the axis read the whole run.
        let fullTimes = try #require(before.timeline).ticks.compactMap { Self.seconds($0.label) }
        #expect(fullTimes.first == 0 && (fullTimes.last ?? 0) >= span / 2)
    }

    @Test(arguments: [800, 2560])
    func chartTextIsReadableAndNoCulpritIsClipped(_ width: Int) throws {
        let run = try ExportRun.get()
        let page = try Self.drive(run.html, width: width)
        #expect(page.viewportWidth == Double(width))
        #expect(!page.fonts.isEmpty)
        #expect((page.fonts.min() ?? 0) >= 11, "smallest chart text \(page.fonts.min() ?? 0) px")
        #expect(page.pageWidth <= page.viewportWidth, "the page scrolls sideways: \(page.pageWidth) px")
        #expect(page.culprits.count == run.report.stalls.count)
        for (cell, stall) in zip(page.culprits, run.report.stalls) {
            #expect((cell.scrollWidth ?? .infinity) <= (cell.clientWidth ?? 0), "clipped: \(cell)")
            #expect(cell.right <= page.viewportWidth, "off the page: \(cell)")
            // A stall without samples has no culprit (a loaded machine may lose them): `—`, no title.
            if let culprit = stall.culprit { #expect(cell.title == "\(culprit.displayName) (\(culprit.module))") }
        }
        for table in page.tables { #expect(table.right <= page.viewportWidth, "\(table)") }
    }

    /// A long stall list (24 stalls) with CPU alerts (`--cpu-alert 1`: the spinning loop's thread
    /// passes 1% of a core in every interval, however loaded the machine).
    @Test func resizingTheWindowLaysTheChartsOutAgain() throws {
        let run = try ExportRun.get()
        let page = try Self.drive(run.html, width: 2560, ["--resize", "800"])
        #expect(page.viewportWidth == 800)
        #expect((page.fonts.min() ?? 0) >= 11, "smallest chart text \(page.fonts.min() ?? 0) px")
        #expect(page.pageWidth <= page.viewportWidth, "the page scrolls sideways: \(page.pageWidth) px")
        let timeline = try #require(page.timeline)
        #expect(timeline.plot.right <= page.viewportWidth)
        for tick in timeline.ticks { #expect(tick.right <= timeline.plot.right + 0.5, "\(tick)") }
    }

    @Test func aLongStallListIsCollapsedWithItsCountAndAlertsStaySquares() throws {
        let directory = temporaryPath("many-stalls")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let html = directory + "/report.html"
        let result = try LagmonProcess.run(
            [
                "run", "--cpu-alert", "1", "--html", html, "--", Binaries.loopFixture, "stall", "--stalls", "24",
                "--ticks-before", "1",
                "--ticks-after", "1",
            ], json: true)
        let report = try #require(result.report)
        let stalls = report.stalls.count
        // Each 250 ms spin is a stall: more than the 20 rows shown open.
        #expect(stalls > 20, "\(result.stderr.suffix(800))")
        let page = try Self.drive(html, width: 1400)
        #expect(page.stallRows == stalls && page.visibleStallRows == 20)
        #expect(page.summaries.contains("Show all \(stalls) stalls (\(stalls - 20) more listed)"), "\(page.summaries)")
        let sampled = report.stalls.filter { $0.callTree != nil }.count
        #expect(sampled > 10)
        // One fingerprint (the same spin each time): one flame graph, its stalls listed under it, collapsed.
        #expect(page.summaries.contains("The \(sampled) stalls"), "\(page.summaries)")
        // CPU alerts are squares, and stay squares when the charts zoom in.
        let zoomed = try Self.drive(html, width: 1400, ["--drag", "0.1", "0.3"])
        #expect(!page.alerts.isEmpty && zoomed.alerts.count == page.alerts.count)
        for alert in page.alerts + zoomed.alerts {
            #expect(abs(alert.width - alert.height) < 0.5 && alert.width >= 6, "\(alert)")
        }
    }
}
