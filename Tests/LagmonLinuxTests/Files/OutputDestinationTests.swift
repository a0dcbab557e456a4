import Foundation
import Glibc
import Testing

@testable import LagmonLinux

/// How an output path is classified before anything runs (OutputSink's checks).
struct OutputDestinationTests {
    @Test func streamsAreTheirDescriptors() throws {
        #expect(try OutputDestination.resolve("-") == .descriptor(1))
        #expect(try OutputDestination.resolve("/dev/stdout") == .descriptor(1))
        #expect(try OutputDestination.resolve("/dev/stderr") == .descriptor(2))
        #expect(try OutputDestination.resolve("/proc/self/fd/2") == .descriptor(2))
        #expect(try OutputDestination.resolve("/dev/null") == .inPlace(path: "/dev/null"))
    }

    @Test func newAndExistingFilesAreReplacedWithTheRightMode() throws {
        let directory = NSTemporaryDirectory() + "lagmon-destination-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let umask = OutputDestination.currentUmask()
        #expect(
            try OutputDestination.resolve(directory + "/new.json")
                == .replace(path: directory + "/new.json", mode: 0o666 & ~umask))
        FileManager.default.createFile(atPath: directory + "/old.json", contents: Data())
        chmod(directory + "/old.json", 0o600)
        symlink("old.json", directory + "/link.json")
        let real = try #require(realpath(directory + "/old.json", nil))
        defer { free(real) }
        #expect(
            try OutputDestination.resolve(directory + "/link.json")
                == .replace(path: String(cString: real), mode: 0o600))
        #expect(OutputDestination.Problem.isDirectory == Self.problem(directory))
        #expect(Self.problem(directory + "/missing/x.json") == .missingDirectory(directory + "/missing"))
        #expect(Self.problem(directory + "/old.json/x.json") == .notADirectory(directory + "/old.json"))
        #expect(Self.problem(directory + "/" + String(repeating: "n", count: 256)) == .nameTooLong(component: 256))
        #expect(Self.problem("") == .empty)
    }

    static func problem(_ path: String) -> OutputDestination.Problem? {
        do {
            _ = try OutputDestination.resolve(path)
            return nil
        } catch {
            return error
        }
    }
}
