import ArgumentParser
import FoundationEssentials
import LagmonCore

/// Checks, before anything runs, that a file can be created at a path the user gave.
enum WritablePath {
    /// Throws a usage error naming `what`, the path and the fix when its directory is missing or
    /// not writable.
    static func check(_ path: String, writing what: String) throws {
        let directory = PathText.deletingLastComponent(path)
        let parent = directory.isEmpty ? "." : directory
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory else {
            throw ValidationError(
                "cannot write \(what) to \(path): directory \(parent) does not exist; create it or choose another path")
        }
        guard FileManager.default.isWritableFile(atPath: parent) else {
            throw ValidationError("cannot write \(what) to \(path): directory \(parent) is not writable")
        }
    }
}
