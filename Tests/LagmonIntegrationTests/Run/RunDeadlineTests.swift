import Foundation
import Testing

/// The test harness's own bound (`LagmonProcess.run`): a run that hangs fails its test and leaves
/// nothing running, and a process a run leaves behind does not hold the suite. A fixture that
/// once hung held a whole loaded run for ten minutes, until it was killed by hand.
@Suite
struct RunDeadlineTests {
    /// A program that outlives the deadline: lagmon, the shell and the shell's child are killed,
    /// and the run throws `Hung` with what lagmon wrote.
    @Test func aRunPastItsDeadlineIsKilledWithEverythingItStarted() throws {
        let marker = Self.uniqueSleep()
        #expect(throws: LagmonProcess.Hung.self) {
            try LagmonProcess.run(
                ["run", "--", "/bin/sh", "-c", "sleep \(marker) & sleep \(marker); :"], withinSeconds: 3)
        }
        #expect(Self.gone(marker), "a process of the hung run is still alive")
    }

    /// The program starts a child that keeps lagmon's stdout and exits: lagmon ends with the
    /// program, and the run returns after a bounded read instead of waiting for the orphan.
    @Test func anOrphanHoldingTheOutputDoesNotHoldTheRun() throws {
        let marker = Self.uniqueSleep()
        defer { Self.kill(marker) }
        let result = try LagmonProcess.run(["run", "--", "/bin/sh", "-c", "sleep \(marker) & echo started"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("started"))
        #expect(result.report != nil)
    }

    /// A sleep length no other process uses, to find the test's own processes by.
    static func uniqueSleep() -> String { "\(Int.random(in: 100_000...999_999)).\(Int.random(in: 1...9))" }

    /// The live processes whose command line holds `marker` (zombies have none).
    static func processes(holding marker: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry), let line = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return nil }
            return String(decoding: line, as: UTF8.self).contains(marker) ? pid : nil
        }
    }

    /// Whether every process holding `marker` has ended, waiting up to 60 s for a SIGKILL
    /// already sent to take effect on a loaded machine.
    static func gone(_ marker: String) -> Bool {
        for _ in 0..<600 {
            if processes(holding: marker).isEmpty { return true }
            usleep(100_000)
        }
        return false
    }

    static func kill(_ marker: String) {
        for pid in processes(holding: marker) { Glibc.kill(pid, SIGKILL) }
    }
}
