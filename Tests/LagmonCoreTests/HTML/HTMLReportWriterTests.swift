import LagmonCore
import Testing

struct HTMLReportWriterTests {
    let html = String(decoding: (try? HTMLReportWriter().render(ExportFixture.report)) ?? [], as: UTF8.self)

    private func count(_ needle: String) -> Int { html.components(separatedBy: needle).count - 1 }

    @Test func oneMarkPerStallWithItsDetailsOnHover() {
        #expect(count("<rect class=\"stall kind-") == 3)
        #expect(
            html.contains(
                "<title>stall #1: 180ms in afterWaiting at +0.250s\nCPU-bound in ImageDecoder.decodeImage(_:)\nculprit: ImageDecoder.decodeImage(_:) (ImageViewer)"
            ))
        #expect(count("<rect class=\"iteration\"") == 2)
    }

    @Test func selfContained() {
        #expect(!html.contains("src=") && !html.contains("href=\"http") && !html.contains("<link"))
        #expect(count("<script>") == 1)
    }

    @Test func flameGraphsForAllStallsAndEachFingerprint() {
        #expect(html.contains("id=\"flame-all\"") && html.contains("id=\"flame-stalls\""))
        // Each sampled stall is a target of its links; the third has no samples, so no graph.
        #expect(html.contains("id=\"stall-1\"") && html.contains("id=\"stall-2\"") && !html.contains("id=\"stall-3\""))
        #expect(count("class=\"chart flame\"") == 3)
    }

    @Test func namesFromTheProgramAreEscaped() {
        let report = Fixture.report(command: ["/bin/<script>alert(1)</script>"])
        let page = String(decoding: (try? HTMLReportWriter().render(report)) ?? [], as: UTF8.self)
        #expect(!page.contains("<script>alert"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    @Test func fingerprintsAndCPUAreShown() {
        let report = Fixture.report(fingerprints: [
            FingerprintReport(
                id: "00ff00ff00ff00ff", frames: ["ImageViewer`decode"], count: 2, totalNs: 5, worstNs: 3,
                stallIds: [1, 2])
        ])
        let page = String(decoding: (try? HTMLReportWriter().render(report)) ?? [], as: UTF8.self)
        #expect(page.contains("00ff00ff00ff00ff") && page.contains("href=\"#stall-2\""))
        #expect(html.contains("class=\"chart time-chart cpu-chart\""))
        #expect(html.contains("ImageViewer [4242] avg 40% max 90%"))
    }

    @Test func marksCarryTheirTimesAndNothingIsStretched() {
        // The script places marks from their times in pixels: no viewBox scaling of the plot.
        #expect(!html.contains("preserveAspectRatio"))
        #expect(html.contains("data-stall=\"1\" data-t0=\"0.250000000\" data-t1=\"0.430000000\""))
        // CPU alerts are squares of a fixed side, placed by their time.
        #expect(html.contains("class=\"alert\""))
        #expect(html.contains("width=\"8\" height=\"8\" data-t=\""))
        #expect(count("<g class=\"axis\">") == 2)
    }

    @Test func aLongStallListIsCollapsedWithItsCount() {
        let stalls = (1...301).map {
            Fixture.stall(id: $0, startNs: UInt64($0) * 300 * Fixture.ms, durationNs: 150 * Fixture.ms)
        }
        let page = String(
            decoding: (try? HTMLReportWriter().render(Fixture.report(stalls: stalls))) ?? [], as: UTF8.self)
        #expect(page.contains("<summary>Show all 301 stalls (281 more listed)</summary>"))
        let open = page.components(separatedBy: "<details id=\"more-stalls\">").first ?? ""
        #expect(open.components(separatedBy: "<td class=\"culprit\"").count - 1 == 20)
        #expect(page.components(separatedBy: "<td class=\"culprit\"").count - 1 == 301)
    }
}
