import FoundationEssentials
import Glibc
import LagmonCore
import LagmonLinux

/// The numbered JSON report snapshots of a long `attach` (`--report-every`, SIGHUP), written
/// atomically next to the `--json` path: `report.json` gives `report.0001.json`,
/// `report.0002.json`… (a path not ending in `.json` gets `.0001` appended). Numbering goes on
/// after the highest snapshot already there, so a restarted agent never overwrites one; after
/// each write only the newest `keep` snapshots remain.
final class ReportSnapshots: @unchecked Sendable {
    private let directory: String
    private let prefix: String
    private let suffix: String
    private let keep: Int
    private var next: Int

    /// Snapshots of the report at `path`, keeping `keep` of them.
    init(path: String, keep: Int) {
        let slash = path.lastIndex(of: "/")
        directory = slash.map { String(path[..<$0]) } ?? "."
        let file = slash.map { String(path[path.index(after: $0)...]) } ?? path
        if file.hasSuffix(".json"), file.count > 5 {
            prefix = String(file.dropLast(5)) + "."
            suffix = ".json"
        } else {
            prefix = file + "."
            suffix = ""
        }
        self.keep = keep
        next = 1
        next = (existing().map(\.number).max() ?? 0) + 1
    }

    /// The path of snapshot `number`.
    func path(_ number: Int) -> String {
        let digits = String(number)
        return directory + "/" + prefix + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + suffix
    }

    /// Writes `recording`'s report as the next snapshot and prunes the oldest; a write that
    /// fails is said on stderr and the session goes on.
    func write(_ recording: SessionRecording) {
        var report = ReportBuilder(toolVersion: LagmonVersion.current).build(recording)
        report.run = RunInfo.current()
        let target = path(next)
        do {
            try AtomicFile.write(JSONReportWriter().render(report), to: target)
            next += 1
        } catch {
            StandardError.say("cannot write the report snapshot \(target): \(error)")
            return
        }
        for old in existing().sorted(by: { $0.number > $1.number }).dropFirst(keep) {
            unlink(old.path)
        }
    }

    /// The snapshots in the directory now, by number.
    private func existing() -> [(number: Int, path: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name in
            guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
            let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
            guard middle.count >= 4, middle.allSatisfy(\.isASCII), middle.allSatisfy(\.isNumber),
                let number = Int(middle)
            else { return nil }
            return (number, directory + "/" + name)
        }
    }
}
