import Foundation
import LagmonTestSupport
import Testing

/// A probe that finds a channel of another version leaves the target alone and says so once.
struct ProbeVersionTests {
    @Test func mismatchedChannelLeavesTheTargetUnmonitored() throws {
        // A channel-shaped file whose header carries the right magic and a future version.
        let path = temporaryPath("channel")
        var header = [UInt8](repeating: 0, count: 4096 * 2)
        withUnsafeBytes(of: UInt64(0x4843_454E_4F4D_474C).littleEndian) { header.replaceSubrange(0..<8, with: $0) }
        withUnsafeBytes(of: UInt32(999).littleEndian) { header.replaceSubrange(8..<12, with: $0) }
        try Data(header).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDWR)
        #expect(fd >= 3)
        defer { close(fd) }
        let preload = Binaries.directory + "/libLagmonPreload.so"
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = preload
        environment["LAGMON_CHANNEL_FD"] = String(fd)
        let output = Pipe()
        let errors = Pipe()
        let pid = try spawnWithCleanSignals(
            [Binaries.demo, "--scenario", "idle", "--seconds", "0.1"], environment: environment,
            stdio: (0, output.fileHandleForWriting.fileDescriptor, errors.fileHandleForWriting.fileDescriptor))
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0)
        #expect(stdout.contains("lagmon-demo: done"))
        #expect(stderr == "lagmon: probe and lagmon versions differ; running unmonitored (rebuild both)\n")
        // The probe counted itself in the stable header prefix (offset 12).
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        let mismatches = after[12..<16].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        #expect(mismatches == 1)
    }

    @Test func preloadWithoutLagmonIsInert() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = Binaries.directory + "/libLagmonPreload.so"
        environment.removeValue(forKey: "LAGMON_CHANNEL_FD")
        let errors = Pipe()
        let output = Pipe()
        let pid = try spawnWithCleanSignals(
            [Binaries.demo, "--scenario", "idle", "--seconds", "0.1"], environment: environment,
            stdio: (0, output.fileHandleForWriting.fileDescriptor, errors.fileHandleForWriting.fileDescriptor))
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        _ = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(status == 0)
        #expect(stderr.isEmpty)
    }
}
