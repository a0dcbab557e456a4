import LagmonCore

/// A report with sampled stalls for the export writers' tests: two stalls on the main thread
/// (7 and 3 samples, one a semicolon-named frame), one without samples, a CPU series and a
/// long iteration.
enum ExportFixture {
    static let ms = Fixture.ms
    static let decode = Fixture.frame(
        "ImageDecoder.decodeImage(_:)", offset: 0x2000, file: "Sources/ImageViewer/ImageDecoder.swift", line: 42)
    static let load = Fixture.frame("ImageListController.loadThumbnail(_:)", offset: 0x1800)
    static let odd = Fixture.frame("operator;\nweird\\name", offset: 0x3000)
    static let read = Fixture.frame("read", "libc.so.6", offset: 0x11_4000)

    static func stack(_ innermost: Frame...) -> [Frame] { innermost + [load] + Fixture.runLoopFrames }

    static let firstProfile = StallProfiler().profile(
        (0..<5).map { Fixture.sample(at: UInt64($0), stack(decode)) }
            + (5..<7).map { Fixture.sample(at: UInt64($0), stack(odd, decode)) })
    static let secondProfile = StallProfiler().profile(
        (0..<3).map { Fixture.sample(at: UInt64($0), stack(read), state: Fixture.state(.sleeping, syscall: "read")) })

    static var stalls: [StallReport] {
        [
            Fixture.stall(
                id: 1, tid: 4242, startNs: 250 * ms, durationNs: 180 * ms, profile: firstProfile,
                diagnosis: StallDiagnosis(kind: .cpu, text: "CPU-bound in ImageDecoder.decodeImage(_:)")),
            Fixture.stall(
                id: 2, tid: 4242, startNs: 1_000 * ms, durationNs: 130 * ms, profile: secondProfile,
                diagnosis: StallDiagnosis(kind: .syscall, text: "blocked 130ms in read(fd 7 → pipe)")),
            Fixture.stall(id: 3, tid: 4242, startNs: 2_000 * ms, durationNs: 110 * ms, seenLive: false),
        ]
    }

    static var report: Report {
        var report = Fixture.report(
            stalls: stalls,
            threads: [
                ThreadReport(
                    tid: 4242, name: "ImageViewer", state: "S",
                    cpu: ThreadCPU(avgPct: 40, maxPct: 90, totalNs: 2_000 * ms),
                    alerts: [CPUAlert(atNs: 500 * ms, cpuPct: 90, frames: [])],
                    cpuSeries: [
                        CPUPoint(atNs: 250 * ms, pct: 10), CPUPoint(atNs: 500 * ms, pct: 90),
                        CPUPoint(atNs: 750 * ms, pct: 20),
                    ])
            ])
        report.loops[0].longIterations = [
            LongIteration(startNs: 240 * ms, durationNs: 200 * ms, endSeen: true),
            LongIteration(startNs: 3_000 * ms, durationNs: 150 * ms, endSeen: false),
        ]
        return report
    }
}
