import Foundation
import Glibc
import LagmonCore
import LagmonTestSupport
import Testing

/// lagmon as `make install` lays it out (scripts/install): found where it was put, with its probe
/// in ../lib/lagmon, the commit stamped in, and a target that changes user still watched.
@Suite(.serialized)
struct InstallTreeTests {
    /// `scripts/install install` of the tested build into `root` with PREFIX `prefix`.
    private static func install(into root: String, prefix: String) throws {
        let result = try ToolRun.run([
            Binaries.packageRoot + "/scripts/install", "install", Binaries.directory, prefix, root,
        ])
        try #require(result.status == 0, "scripts/install: \(result.stderr)")
    }

    /// Every file under `directory`, relative to it, sorted.
    private static func files(under directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(path)
            }
        }
        return files.sorted()
    }

    @Test func installPutsEachFileInItsPlaceAndUninstallRemovesExactlyThem() throws {
        let root = temporaryPath("destdir")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.install(into: root, prefix: "/usr/local")
        let installed = Self.files(under: root + "/usr/local")
        for expected in [
            "bin/lagmon", "lib/lagmon/libLagmonPreload.so", "share/man/man1/lagmon.1",
            "share/bash-completion/completions/lagmon", "share/zsh/site-functions/_lagmon",
            "share/fish/vendor_completions.d/lagmon.fish", "lib/systemd/system/lagmon-attach@.service",
            "share/doc/lagmon/README.md", "share/doc/lagmon/install.md", "share/doc/lagmon/report.schema.json",
        ] {
            #expect(installed.contains(expected), "\(expected) not in \(installed)")
        }
        let unit = try String(
            contentsOfFile: root + "/usr/local/lib/systemd/system/lagmon-attach@.service", encoding: .utf8)
        #expect(unit.contains("\nExecStart=/usr/local/bin/lagmon attach "))
        let bash = try String(
            contentsOfFile: root + "/usr/local/share/bash-completion/completions/lagmon", encoding: .utf8)
        #expect(bash.contains("-F _lagmon lagmon"))
        // Something of the user's beside lagmon's files stays.
        FileManager.default.createFile(atPath: root + "/usr/local/bin/other-tool", contents: Data())
        let removed = try ToolRun.run([Binaries.packageRoot + "/scripts/install", "uninstall", "/usr/local", root])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(Self.files(under: root + "/usr/local") == ["bin/other-tool"])
    }

    /// The installed binary is stripped, says the commit it was stamped with, and finds its
    /// probe in ../lib/lagmon from a tree moved under a path with a space after installing.
    @Test func aMovedTreeWithASpaceFindsItsProbeAndSaysItsCommit() throws {
        let root = temporaryPath("moved")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.install(into: root, prefix: "/opt/lagmon")
        let moved = root + "/my tools/lagmon"
        try FileManager.default.createDirectory(atPath: root + "/my tools", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root + "/opt/lagmon", toPath: moved)
        let lagmon = moved + "/bin/lagmon"
        let commit = try ToolRun.run([
            "git", "-C", Binaries.packageRoot, "describe", "--always", "--dirty", "--abbrev=12",
        ])
        let version = try ToolRun.run([lagmon, "--version"])
        #expect(
            version.text
                == "\(LagmonVersion.current) (commit \(commit.text.trimmingCharacters(in: .whitespacesAndNewlines)))\n")
        let symbols = try ToolRun.run(["readelf", "-S", "-W", lagmon])
        #expect(!symbols.text.contains(".symtab") && !symbols.text.contains(".debug_info"), "not stripped")

        let report = temporaryPath("moved.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let run = try ToolRun.run([
            lagmon, "run", "--json", report, "--", Binaries.loopFixture, "stall",
            "--ticks-after", "2",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let decoded = try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: report))))
        #expect(decoded.stalls.map { $0.culprit?.symbol } == ["spin_for_250ms_in_c_loop"])
    }

    /// The probe is loaded into every kind of program: C only, no Swift runtime among its needs.
    @Test func theProbeLinksNoSwiftRuntime() throws {
        let dynamic = try ToolRun.run(["readelf", "-d", "-W", Binaries.directory + "/libLagmonPreload.so"])
        #expect(dynamic.status == 0)
        let needed = dynamic.text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty)
        #expect(needed.allSatisfy { !$0.lowercased().contains("swift") && !$0.contains("Foundation") }, "\(needed)")
    }

    /// A root lagmon, installed under a path with a space, runs a target that drops to nobody
    /// before it execs the loop: the loop's loader opens the probe as nobody, so lagmon hands it
    /// a world-readable copy (removed at the end), and the stall is found.
    @Test(.enabled(if: geteuid() == 0, "dropping to another user (setpriv --reuid) needs root"))
    func aTargetThatDropsToNobodyKeepsItsProbe() throws {
        let root = temporaryPath("setpriv")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.install(into: root, prefix: "/lagmon tools")
        let scratch = root + "/tmp"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        // The fixture where nobody may run it (the build tree may sit under a private home).
        let fixture = root + "/lagmon-loop-fixture"
        try FileManager.default.copyItem(atPath: Binaries.loopFixture, toPath: fixture)
        let report = temporaryPath("setpriv.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let run = try ToolRun.run(
            [
                root + "/lagmon tools/bin/lagmon", "run", "--json", report, "--", "setpriv", "--reuid=65534",
                "--regid=65534", "--clear-groups", fixture, "stall", "--ticks-after", "2",
            ], environment: ["TMPDIR": scratch])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("cannot be preloaded"), "\(run.stderr)")
        let decoded = try JSONReportWriter.decode(Array(try Data(contentsOf: URL(fileURLWithPath: report))))
        #expect(decoded.loops.map(\.observer) == ["waitcall"])
        #expect(decoded.stalls.map { $0.culprit?.symbol } == ["spin_for_250ms_in_c_loop"])
        #expect(decoded.diagnostics.allSatisfy { $0.code != "no-observer" }, "\(decoded.diagnostics)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch) == [], "the private copy was left behind")
    }
}
