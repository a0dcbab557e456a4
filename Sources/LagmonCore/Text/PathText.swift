/// Path arithmetic on plain strings, with NSString's rules (`lastPathComponent`,
/// `deletingLastPathComponent`): lagmon links FoundationEssentials only, which has no public
/// string path API, and `URL` would make relative paths absolute.
public enum PathText {
    /// The last component: `/opt/demo/bin/app` → `app`, `a/b/` → `b`, `/` → `/`, `` → ``.
    public static func lastComponent(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        guard fixed.count > 1, let slash = fixed.lastIndex(of: "/") else { return fixed }
        return String(fixed[fixed.index(after: slash)...])
    }

    /// Everything before the last component: `/a/b` → `/a`, `/a` → `/`, `a` → ``, `/` → `/`.
    public static func deletingLastComponent(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        guard fixed != "/", let slash = fixed.lastIndex(of: "/") else { return fixed == "/" ? fixed : "" }
        return slash == fixed.startIndex ? "/" : String(fixed[..<slash])
    }

    /// Runs of `/` collapsed to one, and a trailing `/` dropped (except from `/` itself).
    private static func fixingSlashes(_ path: String) -> String {
        var fixed = ""
        for character in path where !(character == "/" && fixed.last == "/") {
            fixed.append(character)
        }
        if fixed.count > 1 && fixed.last == "/" { fixed.removeLast() }
        return fixed
    }
}
