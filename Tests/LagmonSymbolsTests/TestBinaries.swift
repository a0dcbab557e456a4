import Foundation

/// Where the built executables are: `LAGMON_BIN_DIR`, else the directory of this test bundle.
enum TestBinaries {
    static var directory: String {
        if let explicit = ProcessInfo.processInfo.environment["LAGMON_BIN_DIR"], !explicit.isEmpty { return explicit }
        var directory = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "")
        repeat { directory = (directory as NSString).deletingLastPathComponent } while directory.contains(".xctest")
        return directory
    }
}
