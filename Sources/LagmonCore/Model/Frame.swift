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
    /// True for a Swift async function's part (`(1) await resume partial function for X` is shown
    /// as `X`); absent for other frames.
    public var isAsync: Bool?

    public init(
        symbol: String?, module: String, offset: UInt64, address: UInt64, file: String? = nil, line: Int? = nil,
        isAsync: Bool? = nil
    ) {
        self.isAsync = isAsync
        self.symbol = symbol
        self.module = module
        self.offset = offset
        self.address = address
        self.file = file
        self.line = line
    }

    /// `symbol` or, without one, `module+0xoffset`.
    public var displayName: String {
        symbol ?? "\(module)+0x\(String(offset, radix: 16))"
    }
}
