import Foundation
import Glibc
import LagmonCore
import LagmonTestSupport
import Testing

/// lagmon started the ways a user's shell or installer may start it: with stdin or stdout
/// closed, from a directory whose name has a space and a colon; and the demo's files in a
/// temporary directory others can write to.
@Suite(.serialized)
struct HostileSetupTests {
    /// The loop fixture with one 250 ms stall, under `sh` that first says on stderr which of its
    /// descriptors 0 and 1 are open (the ones lagmon passed on).
    static let reportingStdio = [
        "/bin/sh", "-c",
        "for fd in 0 1; do if [ -e /proc/self/fd/$fd ]; then echo \"fd$fd open\" >&2; else echo \"fd$fd closed\" >&2; fi; done; exec \"$0\" stall --ticks-before 2 --ticks-after 2",
    ]

    @Test(arguments: [("1", ">&-"), ("0", "<&-")])
    func aClosedStandardDescriptorStaysClosedForTheTarget(fd: String, redirection: String) throws {
        let result = try LagmonProcess.run(
            ["run", "--"] + Self.reportingStdio + [Binaries.loopFixture],
            wrapper: ["/bin/sh", "-c", "exec \"$0\" \"$@\" \(redirection)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("fd\(fd) closed"), "\(result.stderr)")
        let other = fd == "1" ? "0" : "1"
        #expect(result.stderr.contains("fd\(other) open"))
        // The channel did not take the closed number: the loop and its stall were seen.
        let report = try #require(result.report)
        #expect(report.loops.count == 1)
        #expect(report.stalls.count == 1)
        #expect(!result.stderr.contains("unknown format"))
    }

    @Test func jsonToAClosedStdoutIsAUsageError() throws {
        let result = try LagmonProcess.run(
            ["run", "--json", "-", "--", "/bin/true"], json: false,
            wrapper: ["/bin/sh", "-c", "exec \"$0\" \"$@\" >&-"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("lagmon: cannot write the JSON report to stdout ('-'): descriptor 1 is not open"))
    }

    /// LD_PRELOAD splits at spaces and colons: lagmon installed under such a directory loads
    /// a private copy of its probe instead, and the probe runs.
    @Test func anInstallDirectoryWithASpaceAndAColonStillLoadsTheProbe() throws {
        let root = temporaryPath("install")
        let directory = root + "/my tools:v1"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        for name in ["lagmon", "libLagmonPreload.so", "lagmon-loop-fixture"] {
            try FileManager.default.copyItem(atPath: Binaries.directory + "/" + name, toPath: directory + "/" + name)
        }
        let report = temporaryPath("install.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let run = try ToolRun.run([
            directory + "/lagmon", "run", "--json", report, "--", directory + "/lagmon-loop-fixture", "stall",
            "--ticks-before", "2", "--ticks-after", "2",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("static"), "no false static-or-setuid notice: \(run.stderr)")
        let decoded = try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: report))))
        #expect(decoded.loops.first?.observer == "waitcall")
        #expect(decoded.stalls.count == 1)
        #expect(decoded.diagnostics.allSatisfy { $0.code != "no-observer" })
    }

    /// The demo's images go to a new mkdtemp directory (0700), each file created 0600 with
    /// O_EXCL|O_NOFOLLOW, never `lagmon-demo-<pid>` that anyone could have made first.
    @Test func theDemoWritesItsImagesInAPrivateDirectory() throws {
        let temporary = temporaryPath("demo-tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        chmod(temporary, 0o1777)
        let demo = try WatchedProgram(
            ["/usr/bin/env", "TMPDIR=\(temporary)", Binaries.demo, "--scenario", "idle", "--seconds", "60"])
        _ = try #require(demo.waitForLine(containing: "idle for"))
        let entries = try FileManager.default.contentsOfDirectory(atPath: temporary)
        try #require(entries.count == 1, "\(entries)")
        let name = entries[0]
        #expect(name.hasPrefix("lagmon-demo-") && name != "lagmon-demo-\(demo.pid)", "\(name)")
        var status = stat()
        #expect(lstat(temporary + "/" + name, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFDIR && status.st_mode & 0o777 == 0o700)
        let images = try FileManager.default.contentsOfDirectory(atPath: temporary + "/" + name)
        #expect(images.count == 6)
        for image in images {
            #expect(lstat(temporary + "/" + name + "/" + image, &status) == 0)
            #expect(status.st_mode & S_IFMT == S_IFREG && status.st_mode & 0o777 == 0o600, "\(image)")
        }
    }
}
