import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// Files the target names (in /proc/PID/maps) are untrusted: a library replaced by a FIFO, or
/// deleted and replaced by another file, neither blocks lagmon nor loses the library's names;
/// lagmon finishes, writes its report, forwards signals and never leaves the target traced.
@Suite(.serialized)
struct TargetFileTests {
    /// A copy of the fixture library in a directory of its own (the fixture replaces it).
    static func libraryCopy() throws -> String {
        let directory = temporaryPath("library")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/libspins.so"
        // The bytes, not a symbolic link (copyItem keeps links): the fixture must map this file.
        try Data(contentsOf: URL(fileURLWithPath: Binaries.stackFixtureLibrary)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs the fixture's library mode under lagmon, bounded: a hung lagmon fails the test.
    static func runLibrary(_ replace: String) throws -> LagmonResult? {
        let library = try libraryCopy()
        defer { try? FileManager.default.removeItem(atPath: (library as NSString).deletingLastPathComponent) }
        let running = try LagmonProcess(["run", "--", Binaries.stackFixture, "library", library, replace])
        return try running.finish(withinSeconds: 60)
    }

    @Test(arguments: ["fifo-before", "fifo-during"])
    func aLibraryReplacedByAFIFONeitherBlocksLagmonNorLosesItsNames(replace: String) throws {
        let finished = try Self.runLibrary(replace)
        let result = try #require(finished, "lagmon did not finish within 60 s")
        #expect(result.stdout.contains("replaced "))
        #expect(result.status == 0)
        let report = try #require(result.report)
        let stall = try #require(report.stalls.first)
        #expect(stall.culprit?.symbol == "stack_fixture_library_spins")
        #expect(stall.culprit?.module == "libspins.so")
        #expect(stall.samples > 0)
    }

    @Test func aDeletedAndReplacedLibraryStillSymbolizes() throws {
        let finished = try Self.runLibrary("file")
        let result = try #require(finished, "lagmon did not finish within 60 s")
        #expect(result.stdout.contains("with another file"))
        let stall = try #require(result.report?.stalls.first)
        // Read through /proc/PID/map_files: the file the target runs, not the one at its path now.
        #expect(stall.culprit?.symbol == "stack_fixture_library_spins")
        #expect(stall.culprit?.file?.hasSuffix("library.c") == true)
    }

    @Test func aSignalDuringAStallInAReplacedLibraryIsForwardedAndTheTargetReleased() throws {
        let library = try Self.libraryCopy()
        defer { try? FileManager.default.removeItem(atPath: (library as NSString).deletingLastPathComponent) }
        let running = try LagmonProcess([
            "run", "--", Binaries.stackFixture, "library", library, "fifo-before", "until-sigterm",
        ])
        let pidLine = try #require(running.waitForLine(containing: "pid ", withinSeconds: 30))
        let pid = try #require(Int32(pidLine.split(separator: " ")[1]))
        // 300 ms into the stall: past the threshold, the sampler has the thread seized (and has met
        // the FIFOs).
        _ = try #require(running.waitForLine(containing: "half-way through the stall", withinSeconds: 30))
        #expect(poll(seconds: 10) { StackTests.status(of: pid)?.contains("TracerPid:\t0\n") == false })
        kill(running.pid, SIGTERM)
        let got = running.waitForLine(containing: "got SIGTERM", withinSeconds: 30)
        #expect(got != nil, "the SIGTERM lagmon forwards never reached the target")
        if let status = StackTests.status(of: pid) {
            #expect(!status.contains("State:\tt"))
            #expect(!status.contains("State:\tT"))
        }
        let finished = try running.finish(withinSeconds: 60)
        let result = try #require(finished, "lagmon did not finish within 60 s")
        #expect(result.status == 0)
        let stall = try #require(result.report?.stalls.first)
        #expect(stall.culprit?.symbol == "stack_fixture_library_spins")
    }

    /// A library on a file system whose server answers the program and never lagmon (a FUSE
    /// daemon that hangs, an NFS server gone away): a request from one of lagmon's own threads
    /// would be waited out in the kernel for ever, SIGKILL or not, and lagmon could not even
    /// finish exiting (before: its report written, then a zombie holding its stdout until the
    /// server died). lagmon sends none: a child process copies the file (`ServedFileCopier`)
    /// and is abandoned when the server does not answer it; when it does, the names come from
    /// the copy.
    @Test(arguments: [false, true])
    func aLibraryOnAFileSystemThatNeverAnswersLagmonCannotHangIt(copierAnswered: Bool) throws {
        let mount = temporaryPath("fuse")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        defer {
            umount2(mount, Int32(MNT_DETACH))
            rmdir(mount)
        }
        let names = copierAnswered ? "lagmon-stack-fi,lagmon-copy" : "lagmon-stack-fi"
        let server = try WatchedProgram([
            ChannelHostilityTests.hostileFixture, "fuse-serve", mount, Binaries.stackFixtureLibrary, "libspins.so",
            names,
        ])
        guard server.waitForLine(containing: "mounted ") != nil else {
            server.readToEnd()
            if let reason = server.lines.first(where: { $0.hasPrefix("fuse unavailable") }) {
                try Test.cancel("\(reason)")
            }
            Issue.record("the FUSE server did not start: \(server.lines)")
            return
        }
        // A bound for a hang, not a synchronisation delay (the run takes about a second): a lagmon
        // stuck on the server is released when the server dies.
        let serverPid = server.pid
        DispatchQueue.global().asyncAfter(deadline: .now() + 240) { kill(serverPid, SIGKILL) }
        let running = try LagmonProcess(["run", "--", Binaries.stackFixture, "library", mount + "/libspins.so", "none"])
        let finished = try running.finish(withinSeconds: 200)
        kill(server.pid, SIGKILL)
        server.readToEnd()
        server.waitForExit()
        let result = try #require(finished, "lagmon did not finish while the file's server ignored it")
        #expect(result.status == 0, "\(result.stderr.suffix(600))")
        let ignored = server.lines.filter { $0.hasPrefix("ignored ") }
        #expect(
            ignored.allSatisfy { $0.hasSuffix(" lagmon-copy") },
            "only the copier, never lagmon itself, asked the server: \(ignored)")
        if !copierAnswered { #expect(!ignored.isEmpty, "the copier asked for the file: \(server.lines)") }
        let report = try #require(result.report)
        let stall = try #require(report.stalls.first)
        #expect(stall.samples > 0)
        #expect(stall.culprit?.module == "libspins.so", "culprit: \(String(describing: stall.culprit))")
        if copierAnswered { #expect(stall.culprit?.symbol == "stack_fixture_library_spins") }
    }
}
