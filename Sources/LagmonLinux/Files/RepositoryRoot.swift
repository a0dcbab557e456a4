import Glibc
import LagmonCore

/// Finds the source root CI annotations place files in (`--source-root`, docs/ci.md): the
/// directory given, else the git top level of the current directory, else `$GITHUB_WORKSPACE`.
/// The top level is the nearest directory up from the current one that holds `.git` (a
/// directory, or a file in a worktree or submodule), found with `lstat` alone: no git process to
/// wait for, and nothing opened.
public enum RepositoryRoot {
    /// Directories walked up at most.
    static let maxDepth = 256

    /// The root, in every spelling it has (as reached and with its links resolved); nil when
    /// none is given and the current directory is in no repository.
    public static func locate(given: String?, environment: [String: String]) -> SourceRoot? {
        let current = currentDirectory()
        if let given {
            let absolute = given.hasPrefix("/") ? given : (current ?? "") + "/" + given
            return SourceRoot([absolute] + (resolved(absolute).map { [$0] } ?? []))
        }
        // The logical current directory ($PWD, links as the shell followed them) when it is the
        // physical one, since a build started there recorded its source paths that way.
        let logical = environment["PWD"].flatMap { pwd in resolved(pwd) == current ? pwd : nil }
        let tops = [current, logical].compactMap { $0.flatMap(topLevel(from:)) }
        if !tops.isEmpty { return SourceRoot(tops + tops.compactMap(resolved)) }
        guard let workspace = environment["GITHUB_WORKSPACE"], workspace.hasPrefix("/") else { return nil }
        return SourceRoot([workspace] + (resolved(workspace).map { [$0] } ?? []))
    }

    /// Whether `path` is a directory (`--source-root` must name one).
    public static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// The nearest of `directory` and its ancestors holding a `.git` entry.
    static func topLevel(from directory: String) -> String? {
        var candidate = directory
        for _ in 0..<maxDepth {
            var status = stat()
            let marker = (candidate == "/" ? "" : candidate) + "/.git"
            if lstat(marker, &status) == 0 { return candidate }
            guard candidate != "/" else { return nil }
            candidate = PathText.deletingLastComponent(candidate)
        }
        return nil
    }

    private static func currentDirectory() -> String? {
        guard let path = getcwd(nil, 0) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
