/// Names the Java method a HotSpot interpreter frame runs, from its `Method*`, by the walk
/// `HotSpotLayout` describes: `BlockingHandler.computeReply`, `io.netty.channel.Foo.bar` (the
/// class's binary name with dots, as the perf map writes it). Every read goes through `read` to
/// the target; a pointer that is null or misaligned, an index outside the pool, a name too long
/// or not text yields nil (the frame stays `[interpreted Java]`). Names are cached by method and
/// `ConstMethod` (a redefined or unloaded-and-reused method has another), so a method seen
/// before costs one read.
public final class HotSpotMethodNames {
    /// Longest class and method name read (HotSpot allows 65,535 bytes).
    static let maxClassNameLength = 1024
    static let maxMethodNameLength = 256
    /// Most names kept.
    static let maxCached = 65_536

    public let layout: HotSpotLayout
    private let read: HotSpotVMStructs.Read
    private struct Key: Hashable {
        var method: UInt64
        var constMethod: UInt64
    }
    private var names: [Key: String] = [:]

    public init(layout: HotSpotLayout, read: @escaping HotSpotVMStructs.Read) {
        self.layout = layout
        self.read = read
    }

    /// The method at `method` as `Class.method`; nil when it cannot be read or is implausible.
    public func name(method: UInt64) -> String? {
        guard Self.isMetadata(method), let constMethod = word(method &+ UInt64(layout.methodConstMethod)),
            Self.isMetadata(constMethod)
        else { return nil }
        let key = Key(method: method, constMethod: constMethod)
        if let known = names[key] { return known }
        guard let name = read(constMethod: constMethod) else { return nil }
        if names.count >= Self.maxCached { names.removeAll() }
        names[key] = name
        return name
    }

    /// The walk from a `ConstMethod`: its pool, the pool's class and the method's name entry.
    private func read(constMethod: UInt64) -> String? {
        let end = max(layout.constMethodConstants + 8, layout.constMethodNameIndex + 2)
        guard let fields = read(constMethod, end) else { return nil }
        let pool = fields.elf64(layout.constMethodConstants)
        let nameIndex = Int(fields.elf16(layout.constMethodNameIndex))
        let header = max(layout.constantPoolHolder + 8, layout.constantPoolLength + 4)
        guard Self.isMetadata(pool), let poolFields = read(pool, header) else { return nil }
        let holder = poolFields.elf64(layout.constantPoolHolder)
        let length = Int(Int32(bitPattern: poolFields.elf32(layout.constantPoolLength)))
        guard nameIndex > 0, nameIndex < length, Self.isMetadata(holder),
            let nameSymbol = word(pool &+ UInt64(layout.constantPoolSize + nameIndex * 8)),
            let classSymbol = word(holder &+ UInt64(layout.klassName)),
            let className = symbol(classSymbol, maxLength: Self.maxClassNameLength),
            let methodName = symbol(nameSymbol, maxLength: Self.maxMethodNameLength),
            Self.isName(className), Self.isName(methodName)
        else { return nil }
        return String(className.map { $0 == "/" ? "." : $0 }) + "." + methodName
    }

    /// A `Symbol`'s text (modified UTF-8, read as UTF-8), at most `maxLength` bytes.
    private func symbol(_ address: UInt64, maxLength: Int) -> String? {
        guard Self.isMetadata(address), let lengthBytes = read(address &+ UInt64(layout.symbolLength), 2) else {
            return nil
        }
        let length = Int(lengthBytes.elf16(0))
        guard length > 0, length <= maxLength, let body = read(address &+ UInt64(layout.symbolBody), length) else {
            return nil
        }
        return String(validating: body, as: UTF8.self)
    }

    /// Whether `text` can be a class or method name: not empty, no control characters, and none
    /// of `;` and `[`, which the JVM forbids in both.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && !text.unicodeScalars.contains { $0.value < 0x20 || $0 == ";" || $0 == "[" || $0 == "\u{7f}" }
    }

    /// Whether `address` can be metadata: non-null, word-aligned, in user space.
    static func isMetadata(_ address: UInt64) -> Bool {
        address != 0 && address % 8 == 0 && address < 1 << 47
    }

    private func word(_ address: UInt64) -> UInt64? { read(address, 8).map { $0.elf64(0) } }
}
