/// Where HotSpot keeps what names the method an interpreter frame runs, in one JVM: the field
/// offsets of its metadata and the range of its interpreter's code, read from the JVM's own
/// exported tables (`HotSpotVMStructs`), never assumed. The walk: the frame's `Method*` →
/// `_constMethod` → `_constants` (the constant pool) → `_pool_holder` (the class) → `_name`; the
/// method's name is entry `_name_index` of the pool, a `Symbol*` (`_length` bytes at `_body`).
public struct HotSpotLayout: Sendable, Equatable {
    /// `Method::_constMethod`.
    public var methodConstMethod: Int
    /// `ConstMethod::_constants`.
    public var constMethodConstants: Int
    /// `ConstMethod::_name_index` (a 16-bit constant pool index).
    public var constMethodNameIndex: Int
    /// `ConstantPool::_pool_holder`.
    public var constantPoolHolder: Int
    /// `ConstantPool::_length` (a 32-bit entry count).
    public var constantPoolLength: Int
    /// `sizeof(ConstantPool)`: the pool's word-sized entries follow its header.
    public var constantPoolSize: Int
    /// `Klass::_name`.
    public var klassName: Int
    /// `Symbol::_length` (16 bits) and `Symbol::_body` (the bytes, modified UTF-8).
    public var symbolLength: Int
    public var symbolBody: Int
    /// The interpreter frame's slot holding its `Method*`, in words from its frame pointer
    /// (x86_64: -3, `frame::interpreter_frame_method_offset`).
    public var methodSlot: Int
    /// The interpreter's code, `[interpreterStart, interpreterEnd)` (its `StubQueue`).
    public var interpreterStart: UInt64
    public var interpreterEnd: UInt64

    public init(
        methodConstMethod: Int, constMethodConstants: Int, constMethodNameIndex: Int, constantPoolHolder: Int,
        constantPoolLength: Int, constantPoolSize: Int, klassName: Int, symbolLength: Int, symbolBody: Int,
        methodSlot: Int, interpreterStart: UInt64, interpreterEnd: UInt64
    ) {
        self.methodConstMethod = methodConstMethod
        self.constMethodConstants = constMethodConstants
        self.constMethodNameIndex = constMethodNameIndex
        self.constantPoolHolder = constantPoolHolder
        self.constantPoolLength = constantPoolLength
        self.constantPoolSize = constantPoolSize
        self.klassName = klassName
        self.symbolLength = symbolLength
        self.symbolBody = symbolBody
        self.methodSlot = methodSlot
        self.interpreterStart = interpreterStart
        self.interpreterEnd = interpreterEnd
    }

    /// Whether `address` lies in the interpreter's code.
    public func isInterpreter(_ address: UInt64) -> Bool {
        address >= interpreterStart && address < interpreterEnd
    }
}
