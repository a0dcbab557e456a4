import LagmonCore
import Testing

/// The HTML flame graphs: frames placed by their samples, source places, colours, one graph per
/// fingerprint, and the differential graph of `lagmon diff --html`.
struct FlameGraphTests {
    private static func page(_ report: Report) -> String {
        String(decoding: (try? HTMLReportWriter().render(report)) ?? [], as: UTF8.self)
    }

    private static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// Stall `id` with the first fixture profile (same code, so one fingerprint each time).
    private static func decodeStall(_ id: Int, durationMs: UInt64) -> StallReport {
        Fixture.stall(
            id: id, tid: 4242, startNs: UInt64(id) * 500 * Fixture.ms, durationNs: durationMs * Fixture.ms,
            profile: ExportFixture.firstProfile,
            diagnosis: StallDiagnosis(
                kind: id == 2 ? .runqueue : .cpu, text: "CPU-bound in ImageDecoder.decodeImage(_:)"))
    }

    @Test func framesCarryTheirSamplesOffsetsAndDepths() {
        let html = Self.page(ExportFixture.report)
        let all = html.components(separatedBy: "<section id=\"flame-all\">").last ?? ""
        // The root holds the ten samples of the two sampled stalls.
        #expect(all.contains("x=\"0%\" y=\"0\" width=\"100%\" height=\"16\" data-o=\"0\" data-n=\"10\" data-d=\"0\""))
        // decodeImage (7 of 10) is left of read (3), each one row below loadThumbnail.
        #expect(all.contains("width=\"70%\" height=\"16\" data-o=\"0\" data-n=\"7\" data-d=\"7\""))
        #expect(all.contains("x=\"70%\" y=\"119\" width=\"30%\" height=\"16\" data-o=\"7\" data-n=\"3\" data-d=\"7\""))
        #expect(html.contains("tabindex=\"0\" role=\"button\"><title>"))
        #expect(html.contains("class=\"flame-search\"") && html.contains("class=\"flame-reset\" disabled"))
    }

    @Test func framesShowTheirSourcePlaceAndAreColouredByWhoseCodeTheyAre() {
        let html = Self.page(ExportFixture.report)
        #expect(html.contains(">ImageDecoder.decodeImage(_:) · ImageDecoder.swift:42</text>"))
        #expect(
            html.contains(
                "<title>ImageDecoder.decodeImage(_:)\nImageViewer · Sources/ImageViewer/ImageDecoder.swift:42\n7 samples, 70.0%</title>"
            ))
        // A frame without debug information has its name alone.
        #expect(html.contains(">read</text>") && !html.contains("read · "))
        #expect(html.contains("<svg class=\"frame system\" x=\"70%\" y=\"119\""))
        #expect(html.contains("<svg class=\"frame app\" x=\"0%\" y=\"119\""))
    }

    @Test func stallsOfOneFingerprintAreOneGraphWithTheirCount() {
        var read = ExportFixture.stalls[1]
        read.id = 3
        let stalls =
            [Self.decodeStall(1, durationMs: 180), Self.decodeStall(2, durationMs: 140), read]
            + [Self.decodeStall(4, durationMs: 260)]
        let html = Self.page(Fixture.report(stalls: stalls))
        let section = html.components(separatedBy: "<section id=\"flame-stalls\">").last ?? ""
        // Two fingerprints: decodeImage's three stalls first (the most stall time), then read's.
        #expect(Self.count("class=\"chart flame\"", in: section) == 2)
        #expect(
            section.contains(
                "<h3>3 stalls, 140ms–260ms · <code>ImageDecoder.decodeImage(_:)</code> · cpu ×2, runqueue ×1</h3>"))
        #expect(
            section.contains("<h3>1 stall, 130ms · <code>ImageListController.loadThumbnail(_:)</code> · syscall</h3>"))
        #expect(section.contains("aria-label=\"flame graph of 3 stalls, 140ms–260ms: 21 samples"))
        for id in [1, 2, 4] { #expect(section.contains("<li id=\"stall-\(id)\">stall #\(id) ")) }
        let decodeGroup = section.range(of: "<h3>3 stalls")?.lowerBound ?? section.endIndex
        #expect(decodeGroup < (section.range(of: "<h3>1 stall,")?.lowerBound ?? section.startIndex))
    }

    @Test func oneFingerprintIsTheGraphOfAllStalls() {
        let stalls = (1...6).map { Self.decodeStall($0, durationMs: UInt64(140 + 20 * $0)) }
        let html = Self.page(Fixture.report(stalls: stalls))
        #expect(!html.contains("id=\"flame-stalls\""))
        #expect(Self.count("class=\"chart flame\"", in: html) == 1)
        #expect(html.contains("42 samples from 6 stalls, 160ms–260ms, one fingerprint"))
        // Six stalls: their list is collapsed, each line still the target of its links.
        #expect(html.contains("<details class=\"stall-list\"><summary>The 6 stalls</summary>"))
        for id in 1...6 { #expect(html.contains("<li id=\"stall-\(id)\">")) }
    }

    @Test func theDiffPageColoursGrowthRedAndShrinkageBlue() {
        // Baseline: decodeImage 5 of 10 samples, read 5. Current: decodeImage 9 of 10, read 1.
        func report(decode: Int, read: Int) -> Report {
            let decodeSamples = (0..<decode).map {
                Fixture.sample(at: UInt64($0), ExportFixture.stack(ExportFixture.decode))
            }
            let readSamples = (0..<read).map {
                Fixture.sample(at: UInt64(100 + $0), ExportFixture.stack(ExportFixture.read))
            }
            let stall = Fixture.stall(
                id: 1, tid: 4242, startNs: 0, durationNs: 200 * Fixture.ms,
                profile: StallProfiler().profile(decodeSamples + readSamples))
            return Fixture.report(stalls: [stall])
        }
        let baseline = report(decode: 5, read: 5)
        let current = report(decode: 9, read: 1)
        let diff = ReportDiff(baseline: baseline, current: current, options: ReportDiff.Options())
        let page = String(
            decoding: DiffHTMLWriter().render(
                baseline: baseline, current: current, verdict: diff.verdict(subject: "base.json → cur.json")),
            as: UTF8.self)
        // decodeImage grew by 40 points, the largest change: full red; read shrank as much: full blue.
        #expect(
            page.contains(
                "style=\"fill:#ff0000\"/><text x=\"3\" y=\"12\">ImageDecoder.decodeImage(_:) · ImageDecoder.swift:42</text>"
            ))
        #expect(page.contains("style=\"fill:#0000ff\"/><text x=\"3\" y=\"12\">read</text>"))
        #expect(
            page.contains("now: 9 samples (90.0%)\nbaseline: 5 samples (50.0%)\nchange: +40.0 points of the samples"))
        // Frames every sample passes through did not change.
        #expect(page.contains("style=\"fill:#e0e0e0\"/><text x=\"3\" y=\"12\">main</text>"))
        #expect(page.contains("data-stat-lines=\"3\""))
        #expect(page.contains("<td><code>stall.max</code></td>"))
        #expect(!page.contains("src=") && !page.contains("<link"))
    }

    @Test func aFunctionOnlyInTheBaselineIsListed() {
        let decode = StallProfiler().profile([Fixture.sample(at: 0, ExportFixture.stack(ExportFixture.decode))])
        let read = StallProfiler().profile([Fixture.sample(at: 0, ExportFixture.stack(ExportFixture.read))])
        let baseline = Fixture.report(stalls: [
            Fixture.stall(id: 1, startNs: 0, durationNs: 200 * Fixture.ms, profile: decode),
            Fixture.stall(id: 2, startNs: 500 * Fixture.ms, durationNs: 200 * Fixture.ms, profile: read),
        ])
        let current = Fixture.report(stalls: [
            Fixture.stall(id: 1, startNs: 0, durationNs: 200 * Fixture.ms, profile: decode)
        ])
        let verdict = ReportDiff(baseline: baseline, current: current, options: ReportDiff.Options()).verdict(
            subject: "")
        let page = String(
            decoding: DiffHTMLWriter().render(baseline: baseline, current: current, verdict: verdict), as: UTF8.self)
        #expect(page.contains("<li><code>read (libc.so.6)</code>: 1 samples"))
        #expect(Self.count("<li><code>", in: page) == 1)
    }
}
