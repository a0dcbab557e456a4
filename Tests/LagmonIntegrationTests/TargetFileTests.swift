import Foundation
import LagmonCore
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
        let running = try LagmonProcess(["run", "--", Binaries.stackFixture, "library", library, "fifo-before"])
        let pidLine = try #require(running.waitForLine(containing: "pid ", withinSeconds: 30))
        let pid = try #require(Int32(pidLine.split(separator: " ")[1]))
        // 300 ms into the stall: past the threshold, the sampler has the thread seized (and has met
        // the FIFOs).
        _ = try #require(running.waitForLine(containing: "half-way through the stall", withinSeconds: 30))
        #expect(waitUntil { StackTests.status(of: pid)?.contains("TracerPid:\t0\n") == false })
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
}
