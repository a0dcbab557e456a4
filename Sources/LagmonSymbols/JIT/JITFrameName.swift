import LagmonCore

/// What a perf map's function name says, as a `Frame`: V8's `JS:*deriveKey /srv/app.js:6:19`
/// (node 20; `LazyCompile:`, `Function:` and `InterpretedFunction:` in older versions, `file://`
/// URLs for ES modules) is the JavaScript function `deriveKey` defined at app.js line 6;
/// Python's perf trampolines `py::parse_feed:/srv/app.py` name a Python function and file; V8's
/// own code (`Builtin:`, `BytecodeHandler:`, `Stub:`…) is runtime code, not the user's; HotSpot's
/// names are Java methods or the JVM's own code (`JVMFrameName`); any other name (.NET, LuaJIT)
/// is a JIT-compiled function of the program.
public enum JITFrameName {
    /// V8's prefixes for JavaScript functions (the tier marker follows: `~` interpreted, `^`
    /// baseline, `+` Maglev, `*` optimised).
    static let javascriptKinds = ["JS:", "LazyCompile:", "Function:", "InterpretedFunction:", "Eval:", "Script:"]
    /// V8's prefixes for its own generated code.
    static let v8InternalKinds = ["Builtin:", "BytecodeHandler:", "Stub:", "RegExp:", "Handler:", "Callback:"]
    /// The module of perf-map frames that name no source file.
    public static let module = "[jit]"

    /// The frame for `name` at `address`.
    public static func frame(_ name: String, address: UInt64) -> Frame {
        var frame: Frame
        if let kind = javascriptKinds.first(where: name.hasPrefix) {
            frame = javascript(String(name.dropFirst(kind.count)), whole: name)
        } else if name.hasPrefix("py::") {
            frame = python(String(name.dropFirst(4)), whole: name)
        } else if v8InternalKinds.contains(where: name.hasPrefix) {
            frame = Frame(symbol: name, module: module, offset: 0, address: address)
        } else if let java = JVMFrameName.frame(name, address: address) {
            frame = java
        } else {
            frame = Frame(symbol: name, module: module, offset: 0, address: address)
            frame.runtime = .jit
        }
        frame.address = address
        return frame
    }

    /// Whether `name` is a Python perf trampoline's (`py::…`).
    public static func isPythonTrampoline(_ name: String) -> Bool { name.hasPrefix("py::") }

    /// `*deriveKey /srv/app.js:6:19`, `~ /srv/app.js:1:1` (anonymous), `~get size node:fs:4:2`.
    static func javascript(_ rest: String, whole: String) -> Frame {
        var text = Substring(rest)
        if let tier = text.first, "~*^+-".contains(tier) { text = text.dropFirst() }
        let space = text.lastIndex(of: " ")
        let location = space.map { text[text.index(after: $0)...] } ?? text
        guard let (file, line) = sourceLocation(location) else {
            // No `file:line:column`: V8's whole name, as runtime code (no source to blame).
            return Frame(symbol: whole, module: module, offset: 0, address: 0)
        }
        let function = space.map { text[..<$0].trimmingCharacters(in: " ") } ?? ""
        return .interpreted(.javascript, function: function.isEmpty ? "(anonymous)" : function, file: file, line: line)
    }

    /// `/srv/app.js:6:19` → (`/srv/app.js`, 6); `file:///srv/app.js:6:19` loses its scheme.
    static func sourceLocation(_ text: Substring) -> (String, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let line = Int(parts[parts.count - 2]), Int(parts[parts.count - 1]) != nil, line >= 0
        else { return nil }
        var file = parts.dropLast(2).joined(separator: ":")
        if file.hasPrefix("file://") { file = String(file.dropFirst(7)) }
        guard !file.isEmpty else { return nil }
        return (file, line)
    }

    /// `parse_feed:/srv/app.py` (the function, then the file after the first colon).
    static func python(_ rest: String, whole: String) -> Frame {
        guard let colon = rest.firstIndex(of: ":"), colon != rest.startIndex else {
            var frame = Frame(symbol: whole, module: module, offset: 0, address: 0)
            frame.runtime = .python
            return frame
        }
        let file = String(rest[rest.index(after: colon)...])
        return .interpreted(.python, function: String(rest[..<colon]), file: file, line: nil)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var text = self
        while text.first == set { text = text.dropFirst() }
        while text.last == set { text = text.dropLast() }
        return String(text)
    }
}
