/// The directory source paths are shown relative to: a repository's top level, so CI annotations
/// (GitHub's `file=`, GitLab's `location.path`) point into the checkout. Debug information names
/// files by the absolute path they were compiled from; a path under the root becomes relative
/// to it, any other path has no place in the repository.
///
/// Pure path text: nothing is resolved on disk (the paths come from the target's debug
/// information, and lagmon opens nothing because the target said so). The command line tool
/// passes the root as given and with its links resolved, so either spelling matches.
public struct SourceRoot: Sendable, Equatable {
    /// Spellings of the root, absolute, without a trailing `/`.
    public var spellings: [String]

    /// A root spelled `spellings` (relative or empty spellings are ignored).
    public init(_ spellings: [String]) {
        var kept: [String] = []
        for spelling in spellings.compactMap(Self.normalized) where spelling.hasPrefix("/") && !kept.contains(spelling)
        {
            kept.append(spelling)
        }
        self.spellings = kept
    }

    /// `file` relative to the root: `/work/app/Sources/main.swift` → `Sources/main.swift` under
    /// `/work/app`. A relative `file` (a build with `-fdebug-prefix-map=$PWD=.`) is taken as
    /// relative to the root already. Nil for a path outside the root, one that climbs out of it
    /// with `..`, or the root itself.
    public func relative(_ file: String) -> String? {
        guard let path = Self.normalized(file), !path.isEmpty else { return nil }
        guard path.hasPrefix("/") else { return path == "." ? nil : path }
        for root in spellings {
            let prefix = root == "/" ? "/" : root + "/"
            if path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
        }
        return nil
    }

    /// `path` with `.` components and repeated or trailing slashes removed and `..` applied;
    /// nil when `..` climbs above its start (or above `/`) or the path holds a NUL or a line break.
    static func normalized(_ path: String) -> String? {
        guard !path.contains(where: { $0 == "\0" || $0.isNewline }) else { return nil }
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        if path.hasPrefix("/") { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }
}
