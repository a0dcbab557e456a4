/// The runtime an interpreted or JIT-compiled frame belongs to.
public enum FrameRuntime: String, Codable, Sendable, Hashable {
    /// CPython: a Python function read from the interpreter's frames.
    case python
    /// Node.js (V8): a JavaScript function named by the perf map.
    case javascript
    /// Other JIT code named by a perf map (JVM, .NET, LuaJIT, Python's perf trampolines).
    case jit
}
