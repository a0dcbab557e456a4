import LagmonCore

/// What a HotSpot perf map's name says, as a `Frame`. `jcmd PID Compiler.perfmap` (JDK 17) names
/// compiled methods `void Handler.spinFor(long)` (return type, class, method, parameter types):
/// the frame is `Handler.spinFor` with runtime `java`, a library frame when its class is the
/// JDK's (`java.`, `javax.`, `jdk.`, `sun.`, `com.sun.`), so culprits pass over it to the
/// program's method that called it. A frame of the interpreter's code (`Interpreter`) is named
/// after the method it runs when the sampler read it from the interpreter frame
/// (`InterpretedJavaFrame`, `named(_:interpreted:)`), and is `[interpreted Java]` otherwise. The
/// JVM's other generated code (`I2C/C2I adapters`, `StubRoutines (1)`, `SafepointBlob`…) is runtime
/// code, not the user's.
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
        if let method = method(name) { return javaMethod(method, address: address) }
        guard stubWords.contains(where: name.contains) else { return nil }
        return Frame(symbol: name, module: JITFrameName.module, offset: 0, address: address)
    }

    /// The frame of Java method `method` (`Class.method`): a library frame when the class is the
    /// JDK's.
    static func javaMethod(_ method: String, address: UInt64) -> Frame {
        let library = jdkPackages.contains { method.hasPrefix($0) }
        var frame = Frame(
            symbol: method, module: JITFrameName.module, offset: 0, address: address, isLibrary: library ? true : nil)
        frame.runtime = .java
        return frame
    }

    /// `frames` (one per address of the sample, as the symbolizer made them) with the frames of
    /// HotSpot's interpreter named after the Java methods they ran, `[interpreted Java]` where
    /// the method could not be read. Only frames in no mapped file are renamed: the interpreter's
    /// code is anonymous memory, and nothing read from the target renames a file's function.
    public static func named(_ frames: [Frame], interpreted: [InterpretedJavaFrame]) -> [Frame] {
        var named = frames
        for frame in interpreted where frame.index >= 0 && frame.index < named.count {
            let address = named[frame.index].address
            guard JITSymbolizer.isUnmapped(named[frame.index]) else { continue }
            named[frame.index] =
                frame.method.map { javaMethod($0, address: address) }
                ?? Self.frame(interpreter, address: address) ?? named[frame.index]
        }
        return named
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
