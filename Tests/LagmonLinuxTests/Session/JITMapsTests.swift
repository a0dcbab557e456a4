import Foundation
import Testing

@testable import LagmonLinux

/// Which programs get their perf map turned on, and how the environment says so.
struct JITMapsTests {
    @Test func nodeIsRecognisedByName() {
        #expect(JITMaps.runtime(of: "node") == .node)
        #expect(JITMaps.runtime(of: "/usr/local/bin/nodejs") == .node)
        #expect(JITMaps.runtime(of: "/usr/bin/python3.12") == nil)
        #expect(JITMaps.runtime(of: "nodemon") == nil)
    }

    @Test func nodeOptionsAreAppendedToTheUsers() {
        var environment = ["NODE_OPTIONS": "--max-old-space-size=64"]
        #expect(JITMaps.enable(.node, in: &environment))
        #expect(
            environment["NODE_OPTIONS"]
                == "--max-old-space-size=64 --perf-basic-prof-only-functions --interpreted-frames-native-stack")
        var empty: [String: String] = [:]
        #expect(JITMaps.enable(.node, in: &empty))
        #expect(empty["NODE_OPTIONS"] == "--perf-basic-prof-only-functions --interpreted-frames-native-stack")
    }

    @Test func theUsersOwnPerfMapChoiceStays() {
        var node = ["NODE_OPTIONS": "--perf-basic-prof"]
        #expect(!JITMaps.enable(.node, in: &node))
        #expect(node["NODE_OPTIONS"] == "--perf-basic-prof")
    }

    @Test func onlyRegularMapsWrittenSinceTheRunBeganAreRemoved() throws {
        // Pids far above pid_max stand in for exited targets.
        let fresh: Int32 = 2_000_000_001
        let link: Int32 = 2_000_000_002
        try "1 1 x\n".write(toFile: JITMaps.path(pid: fresh), atomically: false, encoding: .utf8)
        #expect(symlink("/etc/hostname", JITMaps.path(pid: link)) == 0)
        defer { unlink(JITMaps.path(pid: link)) }
        let removed = JITMaps.removeMaps(of: [fresh, link, fresh], createdSince: Int(time(nil)) - 60)
        #expect(removed == [JITMaps.path(pid: fresh)])
        #expect(!FileManager.default.fileExists(atPath: JITMaps.path(pid: fresh)))
        // An older map (an earlier process's) stays.
        try "1 1 x\n".write(toFile: JITMaps.path(pid: fresh), atomically: false, encoding: .utf8)
        defer { unlink(JITMaps.path(pid: fresh)) }
        #expect(JITMaps.removeMaps(of: [fresh], createdSince: Int(time(nil)) + 60).isEmpty)
    }
}
