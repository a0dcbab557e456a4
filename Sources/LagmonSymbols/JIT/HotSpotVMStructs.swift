/// Reads a JVM's `HotSpotLayout` from the tables HotSpot exports for its serviceability agent
/// (`vmStructs.cpp`): `gHotSpotVMStructs` (type, field, static or not, offset or address),
/// `gHotSpotVMTypes` (type, size) and `gHotSpotVMIntConstants` (name, value), arrays of C structs
/// whose member offsets and stride the JVM exports too (`gHotSpotVMStructEntryTypeNameOffset`…),
/// all filled in when the JVM starts. Everything is read through `read`, from the target: a
/// table or string that does not end, a pointer to nowhere or an implausible value yields nil.
public final class HotSpotVMStructs {
    /// Reads `count` bytes at an address of the target; nil unless all of them could be read.
    public typealias Read = (UInt64, Int) -> [UInt8]?

    /// The exported globals read, by name (their runtime addresses are the input).
    public static let symbolNames = [
        "gHotSpotVMStructs", "gHotSpotVMStructEntryArrayStride", "gHotSpotVMStructEntryTypeNameOffset",
        "gHotSpotVMStructEntryFieldNameOffset", "gHotSpotVMStructEntryIsStaticOffset",
        "gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryAddressOffset",
        "gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride", "gHotSpotVMTypeEntryTypeNameOffset",
        "gHotSpotVMTypeEntrySizeOffset",
        "gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride", "gHotSpotVMIntConstantEntryNameOffset",
        "gHotSpotVMIntConstantEntryValueOffset",
    ]
    /// Most entries walked per table (JDK 17 exports about 800 fields and 800 types).
    static let maxEntries = 16_384
    /// Longest type, field or constant name compared; longer ones are not the ones wanted.
    static let maxNameLength = 96
    /// Largest plausible entry stride and member offset.
    static let maxStride = 256
    /// Largest plausible metadata offset or size, and interpreter size.
    static let maxOffset = 4096
    static let maxInterpreterBytes: UInt64 = 64 << 20

    /// The fields of the walk, as `Type::field`.
    static let wantedFields: Set<String> = [
        "Method::_constMethod", "ConstMethod::_constants", "ConstMethod::_name_index", "ConstantPool::_pool_holder",
        "ConstantPool::_length", "Klass::_name", "Symbol::_length", "Symbol::_body", "AbstractInterpreter::_code",
        "StubQueue::_stub_buffer", "StubQueue::_buffer_limit",
    ]
    /// The constant the method's slot is found from: x86_64's interpreter frame keeps the method
    /// in the word below `last_sp` (`frame_x86.hpp`), and exports `last_sp`'s slot only.
    static let lastSPConstant = "frame::interpreter_frame_last_sp_offset"
    /// x86_64's method slot when the constant is not exported.
    static let defaultMethodSlot = -3

    /// One exported field: its offset (non-static) or address (static).
    struct Field: Equatable {
        var offset: UInt64
        var address: UInt64
    }

    private let read: Read
    private let symbols: [String: UInt64]
    private var strings: [UInt64: String?] = [:]

    /// A reader over the target's memory, given the runtime addresses of `symbolNames`.
    public init(symbols: [String: UInt64], read: @escaping Read) {
        self.symbols = symbols
        self.read = read
    }

    /// The layout, or nil when a table, field or type is missing or implausible (not a HotSpot
    /// lagmon knows, or one that has not initialised its tables yet).
    public static func layout(symbols: [String: UInt64], read: @escaping Read) -> HotSpotLayout? {
        HotSpotVMStructs(symbols: symbols, read: read).layout()
    }

    func layout() -> HotSpotLayout? {
        guard let fields = fields(), let poolSize = typeSize("ConstantPool"),
            let offsets = fieldOffsets(fields), let interpreter = interpreterRange(fields)
        else { return nil }
        let lastSP = intConstant(Self.lastSPConstant)
        return HotSpotLayout(
            methodConstMethod: offsets[0], constMethodConstants: offsets[1], constMethodNameIndex: offsets[2],
            constantPoolHolder: offsets[3], constantPoolLength: offsets[4], constantPoolSize: poolSize,
            klassName: offsets[5], symbolLength: offsets[6], symbolBody: offsets[7],
            methodSlot: lastSP.map { Int($0) - 1 } ?? Self.defaultMethodSlot,
            interpreterStart: interpreter.lowerBound, interpreterEnd: interpreter.upperBound)
    }

    /// The walk's non-static field offsets, in `HotSpotLayout`'s order; nil when one is missing
    /// or implausible.
    private func fieldOffsets(_ fields: [String: Field]) -> [Int]? {
        let names = [
            "Method::_constMethod", "ConstMethod::_constants", "ConstMethod::_name_index",
            "ConstantPool::_pool_holder", "ConstantPool::_length", "Klass::_name", "Symbol::_length",
            "Symbol::_body",
        ]
        let offsets = names.compactMap { fields[$0].flatMap { $0.offset < Self.maxOffset ? Int($0.offset) : nil } }
        return offsets.count == names.count ? offsets : nil
    }

    /// The interpreter's code: `AbstractInterpreter::_code` (a static `StubQueue*`), whose
    /// `_stub_buffer` holds `_buffer_limit` bytes of code.
    private func interpreterRange(_ fields: [String: Field]) -> Range<UInt64>? {
        guard let code = fields["AbstractInterpreter::_code"], let buffer = fields["StubQueue::_stub_buffer"],
            let limit = fields["StubQueue::_buffer_limit"], buffer.offset < Self.maxOffset,
            limit.offset < Self.maxOffset, let queue = word(code.address), queue != 0,
            let start = word(queue &+ buffer.offset), let size = int32(queue &+ limit.offset), size > 0,
            UInt64(size) <= Self.maxInterpreterBytes, start != 0, start <= UInt64.max - UInt64(size)
        else { return nil }
        return start..<(start + UInt64(size))
    }

    /// The wanted fields of `gHotSpotVMStructs`, by `Type::field`.
    private func fields() -> [String: Field]? {
        guard let table = table("gHotSpotVMStructs", stride: "gHotSpotVMStructEntryArrayStride"),
            let typeName = member("gHotSpotVMStructEntryTypeNameOffset", within: table.stride),
            let fieldName = member("gHotSpotVMStructEntryFieldNameOffset", within: table.stride),
            let isStatic = member("gHotSpotVMStructEntryIsStaticOffset", within: table.stride, size: 4),
            let offset = member("gHotSpotVMStructEntryOffsetOffset", within: table.stride),
            let address = member("gHotSpotVMStructEntryAddressOffset", within: table.stride)
        else { return nil }
        let wantedTypes = Set(Self.wantedFields.map { String($0.prefix { $0 != ":" }) })
        var found: [String: Field] = [:]
        walk(table) { entry in
            let typePointer = entry.elf64(typeName)
            guard typePointer != 0 else { return false }
            guard let type = string(at: typePointer), wantedTypes.contains(type),
                let field = string(at: entry.elf64(fieldName))
            else { return true }
            // `Symbol::_body` is declared `_body[0]` in some versions.
            let name = type + "::" + (field.hasPrefix("_body") ? "_body" : field)
            guard Self.wantedFields.contains(name) else { return true }
            let isStaticField = entry.elf32(isStatic) != 0
            found[name] = Field(
                offset: isStaticField ? 0 : entry.elf64(offset), address: isStaticField ? entry.elf64(address) : 0)
            return found.count < Self.wantedFields.count
        }
        return found
    }

    /// `sizeof(type)` from `gHotSpotVMTypes`.
    private func typeSize(_ type: String) -> Int? {
        guard let table = table("gHotSpotVMTypes", stride: "gHotSpotVMTypeEntryArrayStride"),
            let typeName = member("gHotSpotVMTypeEntryTypeNameOffset", within: table.stride),
            let size = member("gHotSpotVMTypeEntrySizeOffset", within: table.stride)
        else { return nil }
        var found: Int?
        walk(table) { entry in
            let pointer = entry.elf64(typeName)
            guard pointer != 0 else { return false }
            guard string(at: pointer) == type else { return true }
            let value = entry.elf64(size)
            found = value > 0 && value < Self.maxOffset ? Int(value) : nil
            return false
        }
        return found
    }

    /// The value of int constant `name` from `gHotSpotVMIntConstants`.
    private func intConstant(_ name: String) -> Int32? {
        guard let table = table("gHotSpotVMIntConstants", stride: "gHotSpotVMIntConstantEntryArrayStride"),
            let nameOffset = member("gHotSpotVMIntConstantEntryNameOffset", within: table.stride),
            let valueOffset = member("gHotSpotVMIntConstantEntryValueOffset", within: table.stride, size: 4)
        else { return nil }
        var found: Int32?
        walk(table) { entry in
            let pointer = entry.elf64(nameOffset)
            guard pointer != 0 else { return false }
            guard string(at: pointer) == name else { return true }
            let value = Int32(bitPattern: entry.elf32(valueOffset))
            found = value < 0 && value > -64 ? value : nil
            return false
        }
        return found
    }

    // MARK: Tables

    /// An exported array: its first entry and the size of one.
    struct Table {
        var start: UInt64
        var stride: Int
    }

    /// The array global `name` points to, with the stride global `stride` holds.
    private func table(_ name: String, stride: String) -> Table? {
        guard let pointerAddress = symbols[name], let strideAddress = symbols[stride],
            let start = word(pointerAddress), start != 0, let size = word(strideAddress),
            size >= 8, size <= UInt64(Self.maxStride)
        else { return nil }
        return Table(start: start, stride: Int(size))
    }

    /// The member offset global `name` holds, when a `size`-byte member there fits in `stride`.
    private func member(_ name: String, within stride: Int, size: Int = 8) -> Int? {
        guard let address = symbols[name], let offset = word(address), offset <= UInt64(stride - size) else {
            return nil
        }
        return Int(offset)
    }

    /// Calls `body` with each entry of `table` (its bytes) until it returns false, the table
    /// cannot be read, or `maxEntries` were seen. Entries are read 32 at a time.
    private func walk(_ table: Table, _ body: ([UInt8]) -> Bool) {
        let batch = 32
        var index = 0
        while index < Self.maxEntries {
            let address = table.start &+ UInt64(index * table.stride)
            guard
                let bytes = read(address, batch * table.stride)
                    ?? read(address, table.stride)
            else { return }
            let count = bytes.count / table.stride
            guard count > 0 else { return }
            for entry in 0..<count {
                let slice = Array(bytes[entry * table.stride..<(entry + 1) * table.stride])
                guard body(slice) else { return }
            }
            index += count
        }
    }

    // MARK: Memory

    /// The C string at `address` (cached by address), nil when longer than `maxNameLength` or
    /// unreadable. Read in pieces that stay within a page, so a string at the end of a mapping reads.
    private func string(at address: UInt64) -> String? {
        if let known = strings[address] { return known }
        var bytes: [UInt8] = []
        var at = address
        var text: String?
        while bytes.count <= Self.maxNameLength {
            let piece = min(32, Int(4096 - at % 4096))
            guard address != 0, let part = read(at, piece) else { break }
            if let end = part.firstIndex(of: 0) {
                bytes += part[..<end]
                text = bytes.count <= Self.maxNameLength ? String(decoding: bytes, as: UTF8.self) : nil
                break
            }
            bytes += part
            at &+= UInt64(piece)
        }
        if strings.count > 65_536 { strings.removeAll() }
        strings[address] = .some(text)
        return text
    }

    private func word(_ address: UInt64) -> UInt64? { read(address, 8).map { $0.elf64(0) } }

    private func int32(_ address: UInt64) -> Int32? { read(address, 4).map { Int32(bitPattern: $0.elf32(0)) } }
}
