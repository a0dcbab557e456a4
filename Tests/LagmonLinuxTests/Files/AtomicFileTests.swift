import Foundation
import Testing

@testable import LagmonLinux

struct AtomicFileTests {
    @Test func replacesTheFileAndLeavesNoTemporaries() throws {
        let directory = NSTemporaryDirectory() + "lagmon-atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/report.json"
        try AtomicFile.write(Array("first".utf8), to: path)
        try AtomicFile.write(Array("second".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.json"])
    }

    @Test func failureNamesTheDirectory() {
        #expect(throws: SystemError.self) {
            try AtomicFile.write([1, 2, 3], to: "/nonexistent-lagmon-dir/report.json")
        }
    }
}
