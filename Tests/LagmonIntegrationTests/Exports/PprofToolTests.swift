import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// The pprof export read by the real pprof, built offline from Debian's source package
/// (golang-github-google-pprof-dev) by scripts/build-pprof.
@Suite(.serialized)
struct PprofToolTests {
    /// The built pprof binary, or a failure saying why it could not be built.
    static let pprof: Result<String, any Error> = Result {
        let built = try ToolRun.run([Binaries.packageRoot + "/scripts/build-pprof"])
        guard built.status == 0 else { throw ToolFailure(description: "scripts/build-pprof: \(built.stderr)") }
        return built.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func pprof(_ arguments: [String]) throws -> String {
        let result = try ToolRun.run([try Self.pprof.get()] + arguments)
        #expect(result.status == 0, "pprof \(arguments): \(result.stderr)")
        return result.text
    }

    @Test func mappingsHoldTheRealRangesOffsetsFilesAndBuildIDs() throws {
        let run = try ExportRun.get()
        let raw = try pprof(["-raw", run.pprof])
        let mappings = raw.components(separatedBy: "\nMappings\n").last ?? ""
        let images = try #require(run.report.images)
        let demo = try #require(images.first { $0.module == "lagmon-demo" })
        let expected =
            "0x\(String(demo.start, radix: 16))/0x\(String(demo.limit, radix: 16))/0x\(String(demo.fileOffset, radix: 16)) \(demo.path) \(try #require(demo.buildId))"
        #expect(mappings.contains(expected), "\(mappings)")
        #expect(demo.path == Binaries.demo)
        // The build id is the file's own (as `readelf -n` shows it).
        let notes = try ToolRun.run(["readelf", "-n", Binaries.demo]).text
        #expect(notes.contains("Build ID: \(demo.buildId ?? "-")"))
    }

    @Test func locationsCarryAddressesFunctionsFilesAndLines() throws {
        let run = try ExportRun.get()
        let raw = try pprof(["-raw", run.pprof])
        let section = raw.components(separatedBy: "\nLocations\n").last?.components(separatedBy: "\nMappings\n").first
        let locations = (section ?? "").split(separator: "\n").filter { $0.contains(": 0x") }
        #expect(!locations.isEmpty)
        // Every frame location has its real address, inside a mapping.
        #expect(locations.allSatisfy { !$0.contains(": 0x0 ") })
        let decode = locations.filter { $0.contains("ImageDecoder.decodeImage") }
        #expect(decode.allSatisfy { $0.contains("M=") && !$0.contains("M=0") })
        // decodeImage's own instructions often have no line (line 0 in the debug build's table:
        // compiler-generated code), and a run whose samples all landed there has none for it; the
        // files and lines are checked on loadImage(row:), its caller, whose call site has one.
        let load = locations.filter { $0.contains("ImageListController.loadImage") }
        #expect(!load.isEmpty && load.allSatisfy { $0.contains("Sources/lagmon-demo/ImageListController.swift:") })
        // -lines: each frame's file and line.
        let lines = try pprof(["-top", "-lines", "-cum", "-nodecount=40", run.pprof])
        #expect(lines.contains("ImageListController.swift:"))
        // -list shows loadImage's source, each listed line the file's own text at that number.
        let listing = try pprof(["-list", "loadImage", run.pprof])
        #expect(listing.contains("ROUTINE") && listing.contains("ImageListController.swift"))
        let source = try String(
            contentsOfFile: Binaries.packageRoot + "/Sources/lagmon-demo/ImageListController.swift", encoding: .utf8
        )
        .components(separatedBy: "\n")
        let listed = listing.split(separator: "\n").compactMap { line -> (Int, String)? in
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let number = Int(parts[0].split(separator: " ").last ?? "") else { return nil }
            return (number, String(parts[1]))
        }
        #expect(listed.count > 5)
        for (number, text) in listed where number >= 1 && number <= source.count {
            #expect(
                text.trimmingCharacters(in: .whitespaces) == source[number - 1].trimmingCharacters(in: .whitespaces))
        }
        // -addresses: the runtime addresses of the report's decodeImage frames.
        let reported = Set(
            run.report.stalls.flatMap { $0.stacks.flatMap(\.frames) }.filter {
                $0.symbol?.contains("decodeImage") == true
            }
            .map { String(format: "%016llx", $0.address) })
        let addresses = try pprof(["-top", "-addresses", "-nodecount=3", run.pprof])
        let shown = addresses.split(separator: "\n").filter { $0.contains("decodeImage") }.compactMap {
            $0.split(separator: " ").first { $0.count == 16 && $0.allSatisfy(\.isHexDigit) }.map(String.init)
        }
        #expect(!shown.isEmpty)
        #expect(Set(shown).isSubset(of: reported), "\(shown) not in \(reported)")
    }

    @Test func wallTimeIsTheStallsDurationsAndCountsTheSamples() throws {
        let run = try ExportRun.get()
        let totalNs = run.report.stalls.reduce(0) { $0 + $1.durationNs }
        let samples = run.report.stalls.reduce(0) { $0 + $1.samples }
        let wall = try pprof(["-top", "-unit=ns", "-nodecount=1", "-sample_index=wall", run.pprof])
        #expect(wall.contains("Total samples = \(totalNs)ns"), "\(wall)")
        let counts = try pprof(["-top", "-nodecount=1", "-sample_index=samples", run.pprof])
        #expect(counts.contains("Total samples = \(samples)"), "\(counts)")
        // speedscope's weights add up to the same stall time.
        let speedscope = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run.speedscope)))
        let profiles = (speedscope as? [String: Any])?["profiles"] as? [[String: Any]] ?? []
        let weights = profiles.flatMap { $0["weights"] as? [Int] ?? [] }
        #expect(UInt64(weights.reduce(0, +)) == totalNs)
    }

    /// A Python stall's pprof: the real pprof lists parse_feed and handle_request with the
    /// fixture's file and parse_feed's hot line (Python frames all have address 0, so each
    /// function and line must be a location of its own).
    @Test func pythonFramesCarryTheirFunctionFileAndLine() throws {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            try Test.cancel("\(python) is not installed here")
        }
        let path = temporaryPath("python") + ".pb.gz"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try LagmonProcess.run(["run", "--pprof", path, "--", python, PythonStallTests.fixture, "stall"])
        #expect(result.status == 0)
        let hotLine = try #require(PythonStallTests.number(after: "hot line=", in: result.stdout))
        let raw = try pprof(["-raw", path])
        let section = raw.components(separatedBy: "\nLocations\n").last?.components(separatedBy: "\nMappings\n").first
        let locations = (section ?? "").split(separator: "\n")
        #expect(
            locations.contains { $0.contains("parse_feed") && $0.contains("\(PythonStallTests.fixture):\(hotLine)") },
            "\(locations.filter { $0.contains(".py") })")
        #expect(locations.contains { $0.contains("handle_request") && $0.contains(PythonStallTests.fixture) })
        let lines = try pprof(["-top", "-lines", path])
        #expect(lines.contains("lagmon_python_stall.py:\(hotLine)"), "\(lines)")
    }
}
