import LagmonCore
import LagmonSymbols
import Testing

/// A JVM's memory as far as the vmStructs tables and one interpreted method go, built byte by
/// byte as HotSpot lays them out (entry strides and member offsets as JDK 17 exports them).
final class FakeJVMMemory {
    private(set) var regions: [(start: UInt64, bytes: [UInt8])] = []
    private(set) var reads = 0
    private var nextString: UInt64 = 0x10_0000
    private var strings: [String: UInt64] = [:]
    var symbols: [String: UInt64] = [:]

    func put(_ address: UInt64, _ bytes: [UInt8]) { regions.append((address, bytes)) }
    func put64(_ address: UInt64, _ value: UInt64) { put(address, withUnsafeBytes(of: value.littleEndian, Array.init)) }
    func put32(_ address: UInt64, _ value: UInt32) { put(address, withUnsafeBytes(of: value.littleEndian, Array.init)) }
    func put16(_ address: UInt64, _ value: UInt16) { put(address, withUnsafeBytes(of: value.littleEndian, Array.init)) }

    /// The address of C string `text` (written once).
    func string(_ text: String) -> UInt64 {
        if let known = strings[text] { return known }
        let address = nextString
        put(address, Array(text.utf8) + [0])
        nextString += UInt64(text.utf8.count + 1)
        strings[text] = address
        return address
    }

    /// `count` bytes at `address` when one region holds them all (later regions win).
    func read(_ address: UInt64, _ count: Int) -> [UInt8]? {
        reads += 1
        var bytes = [UInt8?](repeating: nil, count: count)
        for region in regions {
            let end = region.start + UInt64(region.bytes.count)
            guard address < end, address + UInt64(count) > region.start else { continue }
            for index in 0..<count {
                let at = address + UInt64(index)
                if at >= region.start && at < end { bytes[index] = region.bytes[Int(at - region.start)] }
            }
        }
        let all = bytes.compactMap { $0 }
        return all.count == count ? all : nil
    }

    var reader: HotSpotVMStructs.Read { { [self] in read($0, $1) } }

    // MARK: The tables

    static let structs: UInt64 = 0x20_0000
    static let types: UInt64 = 0x30_0000
    static let constants: UInt64 = 0x40_0000
    static let globals: UInt64 = 0x50_0000
    static let interpreterQueue: UInt64 = 0x60_0000
    static let interpreterCode: UInt64 = 0x7f00_0000_0000

    /// The tables of a JDK 17 JVM (the fields the walk needs among others), terminated unless
    /// `terminated` is false.
    static func jdk17(fields: [(String, String, UInt64)] = defaultFields, terminated: Bool = true) -> FakeJVMMemory {
        let memory = FakeJVMMemory()
        var global = globals
        func global64(_ name: String, _ value: UInt64) {
            memory.symbols[name] = global
            memory.put64(global, value)
            global += 8
        }
        global64("gHotSpotVMStructs", structs)
        global64("gHotSpotVMStructEntryArrayStride", 48)
        for (name, offset) in [
            ("TypeName", 0), ("FieldName", 8), ("TypeString", 16), ("IsStatic", 24), ("Offset", 32), ("Address", 40),
        ] {
            global64("gHotSpotVMStructEntry\(name)Offset", UInt64(offset))
        }
        global64("gHotSpotVMTypes", types)
        global64("gHotSpotVMTypeEntryArrayStride", 48)
        global64("gHotSpotVMTypeEntryTypeNameOffset", 0)
        global64("gHotSpotVMTypeEntrySizeOffset", 32)
        global64("gHotSpotVMIntConstants", constants)
        global64("gHotSpotVMIntConstantEntryArrayStride", 16)
        global64("gHotSpotVMIntConstantEntryNameOffset", 0)
        global64("gHotSpotVMIntConstantEntryValueOffset", 8)
        var entry = structs
        for (type, field, value) in fields {
            let isStatic = type == "AbstractInterpreter"
            memory.put(entry, [UInt8](repeating: 0, count: 48))
            memory.put64(entry, memory.string(type))
            memory.put64(entry + 8, memory.string(field))
            memory.put64(entry + 16, memory.string("int"))
            memory.put32(entry + 24, isStatic ? 1 : 0)
            memory.put64(entry + 32, isStatic ? 0 : value)
            memory.put64(entry + 40, isStatic ? value : 0)
            entry += 48
        }
        if terminated { memory.put(entry, [UInt8](repeating: 0, count: 48)) }
        var type = types
        for (name, size) in [("Method", 88), ("ConstantPool", 80), ("Symbol", 8)] {
            memory.put(type, [UInt8](repeating: 0, count: 48))
            memory.put64(type, memory.string(name))
            memory.put64(type + 32, UInt64(size))
            type += 48
        }
        memory.put(type, [UInt8](repeating: 0, count: 48))
        memory.put(constants, [UInt8](repeating: 0, count: 32))
        memory.put64(constants, memory.string("frame::interpreter_frame_sender_sp_offset"))
        memory.put32(constants + 8, UInt32(bitPattern: -1))
        memory.put64(constants + 16, memory.string("frame::interpreter_frame_last_sp_offset"))
        memory.put32(constants + 24, UInt32(bitPattern: -2))
        memory.put(constants + 32, [UInt8](repeating: 0, count: 16))
        // AbstractInterpreter::_code → a StubQueue whose buffer holds 0x30000 bytes.
        memory.put64(globals + 0x800, interpreterQueue)
        memory.put(interpreterQueue, [UInt8](repeating: 0, count: 48))
        memory.put64(interpreterQueue + 8, interpreterCode)
        memory.put32(interpreterQueue + 16, 0x30000)
        return memory
    }

    static let defaultFields: [(String, String, UInt64)] = [
        ("Klass", "_super", 0x40), ("Method", "_constMethod", 8), ("Method", "_access_flags", 0x28),
        ("ConstMethod", "_constants", 8), ("ConstMethod", "_name_index", 0x22), ("ConstantPool", "_tags", 8),
        ("ConstantPool", "_pool_holder", 0x18), ("ConstantPool", "_length", 0x44), ("Klass", "_name", 0x10),
        ("Symbol", "_length", 4), ("Symbol", "_body[0]", 6), ("AbstractInterpreter", "_code", globals + 0x800),
        ("StubQueue", "_stub_buffer", 8), ("StubQueue", "_buffer_limit", 16),
    ]

    // MARK: A method

    /// Writes method `name` of class `className` (internal form) at `method` and returns it.
    @discardableResult
    func method(_ method: UInt64, className: String, name: String, nameIndex: UInt16 = 5) -> UInt64 {
        let constMethod = method + 0x1000
        let pool = method + 0x2000
        let klass = method + 0x3000
        let classSymbol = method + 0x4000
        let nameSymbol = method + 0x5000
        for object in [method, constMethod, pool, klass] { put(object, [UInt8](repeating: 0, count: 0x100)) }
        put64(method + 8, constMethod)
        put64(constMethod + 8, pool)
        put16(constMethod + 0x22, nameIndex)
        put64(pool + 0x18, klass)
        put32(pool + 0x44, 20)
        put64(pool + 80 + UInt64(nameIndex) * 8, nameSymbol)
        put64(klass + 0x10, classSymbol)
        symbol(classSymbol, className)
        symbol(nameSymbol, name)
        return method
    }

    func symbol(_ address: UInt64, _ text: String) {
        put16(address + 4, UInt16(text.utf8.count))
        put(address + 6, Array(text.utf8))
    }
}

/// HotSpot's exported vmStructs tables read into the layout the interpreted-frame walk uses, and
/// that walk, over a synthetic JVM's memory: hostile tables and metadata end in nil, never a trap
/// or an endless walk.
struct HotSpotVMStructsTests {
    @Test func theLayoutComesFromTheExportedTables() throws {
        let memory = FakeJVMMemory.jdk17()
        let layout = try #require(HotSpotVMStructs.layout(symbols: memory.symbols, read: memory.reader))
        #expect(
            layout.methodConstMethod == 8 && layout.constMethodConstants == 8 && layout.constMethodNameIndex == 0x22)
        #expect(layout.constantPoolHolder == 0x18 && layout.constantPoolLength == 0x44 && layout.constantPoolSize == 80)
        #expect(layout.klassName == 0x10 && layout.symbolLength == 4 && layout.symbolBody == 6)
        // The slot below last_sp (-2): frame::interpreter_frame_method_offset.
        #expect(layout.methodSlot == -3)
        #expect(layout.interpreterStart == FakeJVMMemory.interpreterCode)
        #expect(layout.interpreterEnd == FakeJVMMemory.interpreterCode + 0x30000)
        #expect(layout.isInterpreter(FakeJVMMemory.interpreterCode + 0x100))
        #expect(!layout.isInterpreter(FakeJVMMemory.interpreterCode + 0x30000))
    }

    @Test func aMissingFieldOrGlobalIsNoLayout() {
        let fields = FakeJVMMemory.defaultFields.filter { $0.1 != "_name_index" }
        let memory = FakeJVMMemory.jdk17(fields: fields)
        #expect(HotSpotVMStructs.layout(symbols: memory.symbols, read: memory.reader) == nil)
        let whole = FakeJVMMemory.jdk17()
        var symbols = whole.symbols
        symbols["gHotSpotVMTypes"] = nil
        #expect(HotSpotVMStructs.layout(symbols: symbols, read: whole.reader) == nil)
    }

    @Test func tablesNotFilledInYetAreNoLayout() {
        // Before the JVM initialised them its stride and offset globals are zero.
        let memory = FakeJVMMemory.jdk17()
        memory.put64(memory.symbols["gHotSpotVMStructEntryArrayStride"] ?? 0, 0)
        #expect(HotSpotVMStructs.layout(symbols: memory.symbols, read: memory.reader) == nil)
    }

    @Test func hostileTablesEndTheWalk() throws {
        // No terminating entry, and the memory after the last entry unreadable: the walk ends.
        let unterminated = FakeJVMMemory.jdk17(terminated: false)
        #expect(HotSpotVMStructs.layout(symbols: unterminated.symbols, read: unterminated.reader) != nil)
        let lacking = FakeJVMMemory.jdk17(fields: Array(FakeJVMMemory.defaultFields.dropLast()), terminated: false)
        #expect(HotSpotVMStructs.layout(symbols: lacking.symbols, read: lacking.reader) == nil)
        // A table whose every entry is the same one, without end: bounded by maxEntries.
        let endless = FakeJVMMemory.jdk17()
        let entry = try #require(endless.read(FakeJVMMemory.structs + 48 * 3, 48))
        let reader: HotSpotVMStructs.Read = { address, count in
            address >= FakeJVMMemory.structs && address < FakeJVMMemory.types
                ? Array((0..<(count / 48 + 1)).flatMap { _ in entry }.prefix(count)) : endless.read(address, count)
        }
        #expect(HotSpotVMStructs.layout(symbols: endless.symbols, read: reader) == nil)
        // A member offset beyond the stride, a stride of 1 GiB, an interpreter of 1 TiB.
        for (global, value) in [
            ("gHotSpotVMStructEntryAddressOffset", UInt64(48)), ("gHotSpotVMStructEntryArrayStride", 1 << 30),
        ] {
            let memory = FakeJVMMemory.jdk17()
            memory.put64(memory.symbols[global] ?? 0, value)
            #expect(HotSpotVMStructs.layout(symbols: memory.symbols, read: memory.reader) == nil, "\(global)")
        }
        let huge = FakeJVMMemory.jdk17()
        huge.put32(FakeJVMMemory.interpreterQueue + 16, 0x7fff_ffff)
        #expect(HotSpotVMStructs.layout(symbols: huge.symbols, read: huge.reader) == nil)
    }

    @Test func aTypeNameWithoutEndIsNotMatched() {
        let memory = FakeJVMMemory.jdk17()
        // The first entry's type name runs on past any name compared.
        memory.put64(FakeJVMMemory.structs, 0x90_0000)
        memory.put(0x90_0000, [UInt8](repeating: 0x41, count: 4096))
        #expect(HotSpotVMStructs.layout(symbols: memory.symbols, read: memory.reader) != nil)
    }

    // MARK: Method names

    static func names(_ memory: FakeJVMMemory) throws -> HotSpotMethodNames {
        let layout = try #require(HotSpotVMStructs.layout(symbols: memory.symbols, read: memory.reader))
        return HotSpotMethodNames(layout: layout, read: memory.reader)
    }

    @Test func aMethodIsNamedByItsClassAndName() throws {
        let memory = FakeJVMMemory.jdk17()
        let method = memory.method(0x1_0000_0000, className: "io/netty/handler/BlockingHandler", name: "computeReply")
        let names = try Self.names(memory)
        #expect(names.name(method: method) == "io.netty.handler.BlockingHandler.computeReply")
        let before = memory.reads
        #expect(names.name(method: method) == "io.netty.handler.BlockingHandler.computeReply")
        #expect(memory.reads - before == 1, "a method seen before costs one read (its ConstMethod)")
        let inner = memory.method(0x2_0000_0000, className: "Outer$Inner", name: "lambda$run$0")
        #expect(names.name(method: inner) == "Outer$Inner.lambda$run$0")
    }

    @Test func implausibleMetadataIsNoName() throws {
        let memory = FakeJVMMemory.jdk17()
        let names = try Self.names(memory)
        #expect(names.name(method: 0) == nil)
        #expect(names.name(method: 0x1_0000_0004) == nil, "misaligned")
        #expect(names.name(method: 0x9_0000_0000) == nil, "unreadable")
        // The name's index past the pool's 20 entries, or 0.
        for index: UInt16 in [0, 20, 0xffff] {
            let method = memory.method(
                0x3_0000_0000 + UInt64(index) * 0x10_0000, className: "A", name: "b", nameIndex: index)
            #expect(names.name(method: method) == nil, "index \(index)")
        }
        // A symbol longer than names get, empty, or not text.
        let long = memory.method(0x4_0000_0000, className: String(repeating: "a", count: 2000), name: "run")
        #expect(names.name(method: long) == nil)
        let empty = memory.method(0x5_0000_0000, className: "A", name: "")
        #expect(names.name(method: empty) == nil)
        let control = memory.method(0x6_0000_0000, className: "A\u{1}B", name: "run")
        #expect(names.name(method: control) == nil)
        let invalid = memory.method(0x7_0000_0000, className: "A", name: "run")
        memory.put(0x7_0000_5006, [0xff, 0xfe, 0x41])
        #expect(names.name(method: invalid) == nil)
        // A class pointer into kernel space.
        let kernel = memory.method(0x8_0000_0000, className: "A", name: "run")
        memory.put64(0x8_0000_2018, 0xffff_8000_0000_0000)
        #expect(names.name(method: kernel) == nil)
    }
}
