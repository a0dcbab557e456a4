/// Which loops `lagmon run --loops` watches and reports: `auto` (the default: a process's main
/// thread's loop when it has one, otherwise every loop it runs, Swift's main actor and cooperative
/// pool included; every loop of a runtime that runs one per thread it starts, node's workers and
/// tokio's),
/// every process's main thread (`main`), every loop (`all`), or the loop threads with given
/// names, with or without the main threads (`main,worker`). A name may use `*` for any run of
/// characters (`worker-*`).
public struct LoopSelection: Sendable, Equatable, CustomStringConvertible {
    /// The main thread's loop if the process has one, else every loop (`auto`).
    public var auto: Bool = false
    /// Every loop thread.
    public var all: Bool
    /// Each process's main thread (its tid equals its pid).
    public var main: Bool
    /// Thread names (comm), matched whole; `*` matches any run of characters.
    public var names: [String]

    /// The default: each process's main-thread loop, or every loop of a process without one.
    public static let automatic = LoopSelection(auto: true)
    /// Main threads only.
    public static let mainThreads = LoopSelection(all: false, main: true, names: [])
    /// Every loop thread.
    public static let allThreads = LoopSelection(all: true, main: false, names: [])

    public init(all: Bool, main: Bool, names: [String]) {
        self.all = all
        self.main = main
        self.names = names
    }

    private init(auto: Bool) {
        self.init(all: false, main: false, names: [])
        self.auto = auto
    }

    /// Why a `--loops` value is not valid.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Parses `--loops` values: each is `auto`, `main`, `all` or a thread name, and may list several
    /// separated by commas. `auto` and `all` stand alone; no value at all is `auto`.
    public static func parse(_ values: [String]) throws(Invalid) -> LoopSelection {
        let words = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map(String.init)
        guard !words.isEmpty else { return .automatic }
        var selection = LoopSelection(all: false, main: false, names: [])
        for word in words {
            switch word {
            case "all": selection.all = true
            case "auto": selection.auto = true
            case "main": selection.main = true
            case "": throw Invalid(description: "empty loop name in --loops; use main, all or thread names")
            default:
                guard word.utf8.count <= 15 || word.hasSuffix("*") else {
                    throw Invalid(
                        description:
                            "thread name '\(word)' in --loops is longer than the 15 bytes the kernel keeps; use its first 15 bytes, or end it with *"
                    )
                }
                if !selection.names.contains(word) { selection.names.append(word) }
            }
        }
        if selection.all && (selection.main || !selection.names.isEmpty || selection.auto) {
            throw Invalid(description: "--loops all already watches every loop; give it alone")
        }
        if selection.auto && (selection.main || !selection.names.isEmpty) {
            throw Invalid(description: "--loops auto chooses the loops itself; give it alone")
        }
        return selection
    }

    /// Whether probes must offer loops on threads other than the main one.
    public var needsEveryThread: Bool { all || auto || !names.isEmpty }

    /// Whether the loop on thread `tid` named `name` of process `pid` is watched. With `auto`,
    /// `mainThreadHasLoop` says whether that process's main thread runs a loop of its own (a
    /// CFRunLoop or a wait-call loop): then only that loop is watched, otherwise every loop.
    /// `loopPerThread` says the loop is one of a runtime whose threads each run a loop of the
    /// program's (node's `worker_threads`, a tokio runtime's workers): `auto` watches it, and the
    /// main one.
    public func matches(
        tid: Int32, pid: Int32, name: String, mainThreadHasLoop: Bool = true, loopPerThread: Bool = false
    ) -> Bool {
        if all { return true }
        if auto { return tid == pid || !mainThreadHasLoop || loopPerThread }
        if main && tid == pid { return true }
        return names.contains { Self.glob($0, matches: name) }
    }

    /// As `config.loops` states it: `auto`, `main`, `all`, or the words given, comma-separated.
    public var description: String {
        if auto { return "auto" }
        if all { return "all" }
        return ((main ? ["main"] : []) + names).joined(separator: ",")
    }

    /// `pattern` against `text`, `*` matching any run of characters (none included).
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(Array.init)
        let characters = Array(text)
        guard parts.count > 1 else { return Array(pattern) == characters }
        guard let first = parts.first, let last = parts.last, characters.count >= first.count + last.count,
            characters.starts(with: first), characters.reversed().starts(with: last.reversed())
        else { return false }
        var position = first.count
        let end = characters.count - last.count
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = Self.find(part, in: characters, from: position, before: end) else { return false }
            position = found + part.count
        }
        return position <= end
    }

    private static func find(_ part: [Character], in text: [Character], from start: Int, before end: Int) -> Int? {
        guard end - start >= part.count else { return nil }
        return (start...(end - part.count)).first { Array(text[$0..<($0 + part.count)]) == part }
    }
}
