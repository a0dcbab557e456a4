import Foundation
import Glibc
import LagmonCore
import Synchronization
import Testing

@testable import LagmonLinux

/// A long attach keeps memory flat: against a real process that stalls again and again, the
/// session keeps only the stalls its retention allows in full, and the report still counts them
/// all.
@Suite(.serialized)
struct AttachRetentionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// scripts/soak-target: `count` busy periods of `stallMs`, each after a wait of `gapMs`.
    final class SoakTarget: @unchecked Sendable {
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()

        init(count: Int, stallMs: Int, gapMs: Int) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                AttachRetentionTests.root.appendingPathComponent("scripts/soak-target").path, String(count),
                String(stallMs), String(gapMs),
            ]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
        }

        /// The next line the target prints (it says "ready", then "injected COUNT …").
        func line() -> String {
            var bytes: [UInt8] = []
            while let byte = try? output.fileHandleForReading.read(upToCount: 1), let first = byte.first,
                first != UInt8(ascii: "\n")
            {
                bytes.append(first)
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        func send(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
        }

        deinit {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    @Test func stallsBeyondTheRetentionAreFoldedAndStillCounted() throws {
        let target = try SoakTarget(count: 40, stallMs: 30, gapMs: 40)
        #expect(target.line() == "ready")
        let pid = target.process.processIdentifier
        var options = AttachOptions(
            target: try AttachTarget.resolve(pid: pid, thread: .main),
            settings: SessionSettings(thresholdNs: 10_000_000, cpuIntervalNs: nil, cpuAlertPct: nil))
        options.retention = StallRetention(firstCount: 2, longestCount: 3)
        final class Said: Sendable { let line = Mutex<String?>(nil) }
        let injected = Said()
        // The target stalls once lagmon watches it; after its last stall it waits for a line,
        // which lets it exit, which ends the session.
        let outcome = try AttachSession(options: options).run {
            target.send("go")
            Thread.detachNewThread { [target] in
                let line = target.line()
                injected.line.withLock { $0 = line }
                target.send("exit")
            }
        }
        #expect(outcome.ending == .processExited)
        // Then what it observed itself (scripts/soak-target): off-CPU holes, short waits.
        #expect(injected.line.withLock { $0 }?.hasPrefix("injected 40 ") == true)
        let loop = try #require(outcome.recording.loops.first)
        let retention = options.retention
        #expect(loop.stallRecords.count < retention.foldAt, "records held are bounded")
        // 40 busy periods of 30 ms, 40 ms apart: on a loaded machine late readings may merge a
        // few, but far more than a fold's worth (8) are seen.
        #expect(loop.foldedStalls.count > 0)
        // Pruned at each fold to the records kept (and stalls not recorded yet): at most a fold's
        // worth more until the next.
        #expect(loop.liveStallNoticedNs.count <= 2 * retention.foldAt, "noticed times are pruned")
        let report = ReportBuilder(toolVersion: "test").build(outcome.recording)
        // The interpreter's own exit can be one more stall, still open when the process ended.
        let open = report.stalls.filter(\.ongoingAtExit).count
        let total = loop.stallRecords.count + loop.foldedStalls.count + open
        #expect(report.summary.stallCount == total)
        // 40 injected, and the exit; late readings may merge a few, and a reading that finds the
        // thread between two steps of its spin may split one.
        #expect(total >= 20, "\(total) stalls of 40 and the exit")
        #expect(report.loops.first?.stallCount == total)
        #expect(report.stalls.count == loop.stallRecords.count + open)
        let ids = report.stalls.map(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count && (ids.last ?? 0) <= total, "\(ids)")
        #expect(Array(ids.prefix(2)) == [1, 2], "the first stalls are kept")
        if outcome.recording.samplingUnavailable == nil {
            #expect(outcome.recording.samplesFolded + outcome.recording.stateOnlySamplesFolded > 0)
            #expect(report.sampling.samples >= outcome.recording.samplesFolded)
        }
    }
}
