/// The runtime an interpreted or JIT-compiled frame belongs to.
public enum FrameRuntime: String, Codable, Sendable, Hashable {
    /// CPython: a Python function read from the interpreter's frames.
    case python
    /// Node.js (V8): a JavaScript function named by the perf map.
    case javascript
    /// Java (HotSpot): a method named by the JVM's perf map or read from its interpreter frame,
    /// or `[interpreted Java]`.
    case java
    /// Other JIT code named by a perf map (.NET, LuaJIT, Python's perf trampolines).
    case jit
}
