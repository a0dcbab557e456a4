import Foundation
import Glibc
import LagmonCore
import Testing

@testable import LagmonLinux

/// Where lagmon finds its probe, and the path it gives the loader: the file itself when any user
/// can load it from there, else a private world-readable copy it removes afterwards.
@Suite(.serialized)
struct LoadablePreloadTests {
    /// A new directory under /tmp (0755), removed by the caller.
    private func directory(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "lagmon-test-\(UUID().uuidString)/" + name
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        return path
    }

    private func library(in directory: String, mode: mode_t = 0o644) throws -> String {
        let path = directory + "/" + PreloadLibrary.fileName
        try Data("not really ELF".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return path
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode : 0
    }

    @Test func theProbeIsBesideTheBinaryOrInLibLagmonAboveIt() {
        #expect(
            PreloadLibrary.candidates(executableDirectory: "/opt/lagmon/bin")
                == ["/opt/lagmon/bin/libLagmonPreload.so", "/opt/lagmon/lib/lagmon/libLagmonPreload.so"])
        #expect(
            PreloadLibrary.candidates(executableDirectory: "/usr/bin")
                == ["/usr/bin/libLagmonPreload.so", "/usr/lib/lagmon/libLagmonPreload.so"])
    }

    @Test func aWorldReadableLibraryWithAPlainPathIsUsedInPlace() throws {
        let folder = try directory("plain")
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let path = try library(in: folder)
        let loadable = try LoadablePreload(library: path, environment: [:])
        defer { loadable.remove() }
        #expect(loadable.path == path)
        #expect(loadable.copyDirectory == nil)
        // Through a link, or with `..`: the loader gets the resolved path.
        let linked = try LoadablePreload(library: folder + "/../plain/" + PreloadLibrary.fileName, environment: [:])
        #expect(linked.path == path && linked.copyDirectory == nil)
    }

    @Test(arguments: ["with space", "with:colon"])
    func aPathLDPreloadWouldSplitGetsAPrivateCopy(name: String) throws {
        let folder = try directory(name)
        let top = (folder as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: top) }
        let tmp = try directory("tmp")
        let path = try library(in: folder)
        let loadable = try LoadablePreload(library: path, environment: ["TMPDIR": tmp])
        let copyDirectory = try #require(loadable.copyDirectory)
        #expect(copyDirectory.hasPrefix(tmp + "/lagmon-preload-\(getuid())-"))
        #expect(loadable.path == copyDirectory + "/" + PreloadLibrary.fileName)
        #expect(!loadable.path.contains(" ") && !loadable.path.contains(":"))
        #expect(mode(copyDirectory) & 0o7777 == 0o755)
        #expect(mode(loadable.path) & S_IFMT == S_IFREG && mode(loadable.path) & 0o7777 == 0o644)
        #expect(FileManager.default.contents(atPath: loadable.path) == FileManager.default.contents(atPath: path))
        loadable.remove()
        #expect(!FileManager.default.fileExists(atPath: copyDirectory))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// Another user (the target after `setpriv --reuid`) could not read the file, or not enter
    /// a directory above it.
    @Test(arguments: [(0o600 as mode_t, 0o755 as mode_t), (0o644, 0o700)])
    func aLibraryOtherUsersCannotReachGetsACopy(fileMode: mode_t, directoryMode: mode_t) throws {
        let folder = try directory("private")
        let top = (folder as NSString).deletingLastPathComponent
        defer {
            chmod(folder, 0o755)
            try? FileManager.default.removeItem(atPath: top)
        }
        let tmp = try directory("tmp")
        let path = try library(in: folder, mode: fileMode)
        chmod(folder, directoryMode)
        let loadable = try LoadablePreload(library: path, environment: ["TMPDIR": tmp])
        defer { loadable.remove() }
        #expect(loadable.copyDirectory != nil)
        #expect(mode(loadable.path) & 0o777 == 0o644)
    }

    /// TMPDIR with a space cannot hold the copy (its path would split): the next candidate does.
    @Test func aTemporaryDirectoryWithASpaceIsPassedOver() throws {
        let folder = try directory("a b")
        let top = (folder as NSString).deletingLastPathComponent
        defer { try? FileManager.default.removeItem(atPath: top) }
        let path = try library(in: folder)
        let loadable = try LoadablePreload(library: path, environment: ["TMPDIR": folder])
        defer { loadable.remove() }
        let copyDirectory = try #require(loadable.copyDirectory)
        #expect(!copyDirectory.hasPrefix(folder))
        #expect(!copyDirectory.contains(" "))
    }

    @Test func aMissingLibraryIsAnError() {
        #expect(throws: SystemError.self) {
            _ = try LoadablePreload(library: "/nonexistent/dir with space/libLagmonPreload.so", environment: [:])
        }
    }
}

/// The commit stamp's reader takes only what a commit name holds.
struct BuildStampTests {
    @Test func theStampIsTheTextUpToTheFirstNUL() {
        #expect(
            BuildStamp.parse(Array("v0.1.0-3-gabc123def456-dirty".utf8) + [0, 0]) == "v0.1.0-3-gabc123def456-dirty")
        #expect(BuildStamp.parse(Array("abc123".utf8)) == "abc123")
    }

    @Test func anEmptyOrStrangeStampIsNone() {
        #expect(BuildStamp.parse([UInt8](repeating: 0, count: 64)) == nil)
        #expect(BuildStamp.parse([]) == nil)
        #expect(BuildStamp.parse(Array("abc\u{1b}[31m".utf8)) == nil)
        #expect(BuildStamp.parse(Array("has space".utf8)) == nil)
        #expect(BuildStamp.parse([0xff, 0xfe, 0]) == nil)
    }

    @Test func anUnstampedBuildSaysTheVersionAlone() {
        // The tests run a `swift build`, which nothing stamped.
        #expect(BuildStamp.commit == nil)
        #expect(BuildStamp.versionLine == LagmonVersion.current)
    }
}
