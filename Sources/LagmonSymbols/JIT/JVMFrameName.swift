import LagmonCore

/// What a HotSpot perf map's name says, as a `Frame`. `jcmd PID Compiler.perfmap` (JDK 17) names
/// compiled methods `void Handler.spinFor(long)` (return type, class, method, parameter types):
/// the frame is `Handler.spinFor` with runtime `java`, a library frame when its class is the
/// JDK's (`java.`, `javax.`, `jdk.`, `sun.`, `com.sun.`), so culprits pass over it to the
/// program's method that called it. The interpreter's code (`Interpreter`) is the frame
/// `[interpreted Java]`: which method it runs is in the interpreter's frame, which lagmon does not
/// read. The JVM's other generated code (`I2C/C2I adapters`, `StubRoutines (1)`, `SafepointBlob`…)
/// is runtime code, not the user's.
public enum JVMFrameName {
    /// The name of the interpreter's code in HotSpot's map.
    static let interpreter = "Interpreter"
    /// The frame standing for a method HotSpot's interpreter runs.
    public static let interpretedSymbol = "[interpreted Java]"
    /// Packages of the JDK's own classes.
    static let jdkPackages = ["java.", "javax.", "jdk.", "sun.", "com.sun."]
    /// Words in the names of HotSpot's generated stubs, adapters and buffers.
    static let stubWords = [
        "Blob", "Stub", "adapters", "handlers", "Handler Temp Buffer", "chunks", "Interpreter", "flush icache",
        "BufferBlob",
    ]

    /// The frame for `name` when it is one of HotSpot's; nil otherwise.
    static func frame(_ name: String, address: UInt64) -> Frame? {
        if name == interpreter {
            var frame = Frame(symbol: interpretedSymbol, module: JITFrameName.module, offset: 0, address: address)
            frame.runtime = .java
            return frame
        }
        if let method = method(name) {
            let library = jdkPackages.contains { method.hasPrefix($0) }
            var frame = Frame(
                symbol: method, module: JITFrameName.module, offset: 0, address: address,
                isLibrary: library ? true : nil)
            frame.runtime = .java
            return frame
        }
        guard stubWords.contains(where: name.contains) else { return nil }
        return Frame(symbol: name, module: JITFrameName.module, offset: 0, address: address)
    }

    /// `void Handler.spinFor(long)` → `Handler.spinFor`; `java.lang.Object
    /// jdk.internal.misc.Unsafe.getReferenceVolatile(java.lang.Object, long)` →
    /// `jdk.internal.misc.Unsafe.getReferenceVolatile`; nil for anything else.
    static func method(_ name: String) -> String? {
        guard name.hasSuffix(")"), let open = name.firstIndex(of: "(") else { return nil }
        let head = name[..<open]
        guard let space = head.lastIndex(of: " ") else { return nil }
        let returnType = head[..<space]
        let qualified = head[head.index(after: space)...]
        guard !returnType.isEmpty, !returnType.contains(" "), let dot = qualified.lastIndex(of: "."),
            dot != qualified.startIndex, qualified.index(after: dot) != qualified.endIndex,
            qualified.allSatisfy({ $0.isLetter || $0.isNumber || "_$.<>".contains($0) })
        else { return nil }
        return String(qualified)
    }
}
