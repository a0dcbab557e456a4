import Foundation
import Glibc
import Testing

@testable import LagmonSymbols

/// Reading a process's perf map through /proc/<pid>/root: regular files only, never blocking,
/// bounded, incremental. The process is the test's own (its map path is ours to create).
@Suite(.serialized)
struct PerfMapFileTests {
    let path = "/tmp/perf-\(getpid()).map"

    @Test func anAppendedMapIsReadIncrementally() throws {
        unlink(path)
        defer { unlink(path) }
        try "1000 10 JS:*a /a.js:1:1\n2000 10 JS:*b /a".write(toFile: path, atomically: false, encoding: .utf8)
        let file = PerfMapFile(pid: getpid())
        #expect(file.refresh())
        #expect(file.map.entries.map(\.name) == ["JS:*a /a.js:1:1"])
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(".js:2:1\n".utf8))
        try handle.close()
        #expect(file.refresh())
        #expect(file.map.entries.map(\.name) == ["JS:*a /a.js:1:1", "JS:*b /a.js:2:1"])
    }

    @Test func aFIFOIsRefusedWithoutBlocking() {
        unlink(path)
        defer { unlink(path) }
        #expect(mkfifo(path, 0o600) == 0)
        // No writer: a blocking open or read would hang here.
        let file = PerfMapFile(pid: getpid())
        #expect(!file.refresh())
        #expect(file.refusal == "not a regular file")
    }

    @Test func aSymlinkIsNotFollowed() throws {
        unlink(path)
        let target = NSTemporaryDirectory() + "lagmon-perfmap-target-\(UUID().uuidString)"
        try "1000 10 JS:*secret /a.js:1:1\n".write(toFile: target, atomically: false, encoding: .utf8)
        defer {
            unlink(path)
            unlink(target)
        }
        #expect(symlink(target, path) == 0)
        let file = PerfMapFile(pid: getpid())
        #expect(!file.refresh())
        #expect(file.map.entries.isEmpty)
    }

    @Test func aHugeMapIsRefusedUnread() throws {
        unlink(path)
        defer { unlink(path) }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(descriptor >= 0)
        // Sparse: 64 MiB and one byte, without writing them.
        #expect(ftruncate(descriptor, off_t(PerfMapFile.maxBytes + 1)) == 0)
        close(descriptor)
        let file = PerfMapFile(pid: getpid())
        #expect(!file.refresh())
        #expect(file.refusal == "larger than 64 MiB")
        #expect(file.map.bytesConsumed == 0)
    }

    @Test func aMissingMapIsNoError() {
        unlink(path)
        let file = PerfMapFile(pid: getpid())
        #expect(!file.refresh())
        #expect(file.refusal == nil)
    }
}
