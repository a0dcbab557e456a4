/// One symbolized stack frame, as reports show it.
public struct Frame: Codable, Sendable, Hashable {
    /// The function, demangled (Swift and C++); nil when no symbol covers the address.
    public var symbol: String?
    /// The image's file name (`lagmon-demo`, `libFoundation.so`); `?` when the address is in no
    /// mapped file (JIT code, a vanished mapping).
    public var module: String
    /// The address relative to the image's load base (stable across runs of the same build).
    public var offset: UInt64
    /// The runtime address (differs from run to run under ASLR).
    public var address: UInt64
    /// Source file, when debug information exists.
    public var file: String?
    /// Source line, when debug information exists.
    public var line: Int?
    /// The runtime of an interpreted or JIT-compiled frame (`python`, `javascript`); nil for
    /// native code. Such frames name the function in `symbol`, its source file in `module` and
    /// `file`, and have no address.
    public var runtime: FrameRuntime?
    /// True for a Swift async function's part (`(1) await resume partial function for X` is shown
    /// as `X`); absent for other frames.
    public var isAsync: Bool?
    /// True for a logical frame: no frame on the thread's stack but a Swift async function that
    /// awaited the frame before it, read from the async context chain (`AsyncCallerChain`);
    /// `address` is where it resumes. Absent for physical frames.
    public var isAsyncCaller: Bool?
    /// True for a library's code compiled into an application image: a Rust function of `std`,
    /// `core`, `alloc` or a crate the program depends on (tokio, mio, …), which culprits pass
    /// over as they pass over system modules. Absent for the program's own code and elsewhere.
    public var isLibrary: Bool?

    public init(
        symbol: String?, module: String, offset: UInt64, address: UInt64, file: String? = nil, line: Int? = nil,
        isAsync: Bool? = nil, isLibrary: Bool? = nil
    ) {
        self.isAsync = isAsync
        self.isLibrary = isLibrary
        self.symbol = symbol
        self.module = module
        self.offset = offset
        self.address = address
        self.file = file
        self.line = line
    }

    /// `symbol` or, without one, `module+0xoffset`; interpreted frames add their place,
    /// `parse_feed (app.py:12)`.
    public var displayName: String {
        guard let symbol else { return "\(module)+0x\(String(offset, radix: 16))" }
        guard runtime != nil, let file else { return symbol }
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return line.map { "\(symbol) (\(name):\($0))" } ?? "\(symbol) (\(name))"
    }

    /// A frame of interpreted code: `function` in `file` at `line`.
    public static func interpreted(_ runtime: FrameRuntime, function: String, file: String, line: Int?) -> Frame {
        var frame = Frame(symbol: function, module: file, offset: 0, address: 0, file: file, line: line)
        frame.runtime = runtime
        return frame
    }

    /// The name stacks group the frame under: `symbol`, or without one a single stable name per
    /// module, `module+?` (`[unknown]` outside any module), as perf and stackcollapse name
    /// unsymbolized frames, so a flame graph does not split into one fragment per address.
    public var groupName: String {
        symbol ?? (module == Self.unknownModule ? "[unknown]" : "\(module)+?")
    }

    /// The module of an address in no mapped file.
    public static let unknownModule = "?"
}
