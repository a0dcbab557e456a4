/// Rust's v0 mangling (RFC 2603, `-C symbol-mangling-version=v0`): a path grammar with crate
/// roots, nested names in namespaces (closures, shims), inherent and trait impls, generic
/// arguments and back references to earlier parts of the symbol. Printed as `rustc-demangle`'s
/// alternate form prints it: no crate disambiguators, closures as `{closure#N}`.
///
/// The input is another process's symbol table: every step is bounded. Recursion stops at
/// `depthLimit`, output at `outputLimit` characters, a back reference must point strictly
/// before where it is read (so it cannot loop), and anything malformed gives nil.
struct RustV0Demangler {
    /// Why parsing stopped: the symbol is not one rustc makes, or too deep or long to show.
    struct Invalid: Error {}

    static let depthLimit = 200
    static let outputLimit = 4096
    /// The most paths and types one symbol may parse: back references can repeat parts (even
    /// unprinted ones) many times over.
    static let stepLimit = 20_000

    /// The symbol after `_R`.
    let bytes: [UInt8]
    /// Where the parser reads.
    var position = 0
    /// What has been printed.
    var output = ""
    /// False while parsing something not shown (an impl's own path).
    var printing = true
    /// Nesting of paths and types, against `depthLimit`.
    var depth = 0
    /// Paths and types parsed, against `stepLimit`.
    var steps = 0
    /// Lifetimes bound by the enclosing `for<…>` binders.
    var boundLifetimes = 0
    /// The first crate root the symbol's own path reaches; nil until then.
    var crate: String?
    /// False while parsing a part whose crate is not the code's (a trait's `Self` type).
    var recordsCrate = true

    /// The demangling of v0 symbol `bytes` (after `_R`); nil when malformed.
    static func demangle(_ bytes: [UInt8]) -> RustSymbol? {
        var parser = RustV0Demangler(bytes: bytes)
        do {
            // An optional encoding version (decimal): only version 0 (absent) exists.
            guard let first = parser.peek(), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
                return nil
            }
            try parser.path(inValue: true)
            // What may follow: the instantiating crate (a path), then a vendor suffix (`.llvm.N`).
            if let next = parser.peek(), next != UInt8(ascii: "."), next != UInt8(ascii: "$") {
                parser.printing = false
                parser.recordsCrate = false
                try parser.path(inValue: false)
            }
            if let next = parser.peek(), next != UInt8(ascii: "."), next != UInt8(ascii: "$") { return nil }
        } catch {
            return nil
        }
        return RustSymbol(name: parser.output, crate: parser.crate ?? "")
    }

    // MARK: Paths

    /// `path`; `inValue`: generic arguments print as `::<…>` (in an expression) rather than `<…>`.
    mutating func path(inValue: Bool) throws {
        try nested {
            let tag = try $0.next()
            switch tag {
            case UInt8(ascii: "C"): try $0.crateRoot()
            case UInt8(ascii: "M"): try $0.inherentImpl()
            case UInt8(ascii: "X"): try $0.traitImpl()
            case UInt8(ascii: "Y"): try $0.traitDefinition()
            case UInt8(ascii: "N"): try $0.nestedPath(inValue: inValue)
            case UInt8(ascii: "I"): try $0.genericPath(inValue: inValue)
            case UInt8(ascii: "B"): try $0.backReference { try $0.path(inValue: inValue) }
            default: throw Invalid()
            }
        }
    }

    /// `C [disambiguator] identifier`: the crate's name (its disambiguator hash is not shown).
    private mutating func crateRoot() throws {
        _ = try disambiguator()
        let name = try identifier()
        if recordsCrate, crate == nil { crate = name }
        print(name)
    }

    /// `M impl-path type`: `<Type>`.
    private mutating func inherentImpl() throws {
        try implPath()
        print("<")
        try type()
        print(">")
    }

    /// `X impl-path type path`: `<Type as Trait>`.
    private mutating func traitImpl() throws {
        try implPath()
        print("<")
        try type()
        print(" as ")
        try path(inValue: false)
        print(">")
    }

    /// `Y type path`: `<Type as Trait>`, the trait's own (default) code: its crate is the trait's.
    private mutating func traitDefinition() throws {
        print("<")
        let recorded = recordsCrate
        recordsCrate = false
        try type()
        recordsCrate = recorded
        print(" as ")
        try path(inValue: false)
        print(">")
    }

    /// The module an impl block is in: parsed (its crate is the code's), not shown.
    private mutating func implPath() throws {
        let shown = printing
        printing = false
        defer { printing = shown }
        _ = try disambiguator()
        try path(inValue: false)
    }

    /// `N namespace path identifier`: `path::name`; in an upper-case namespace (closures `C`,
    /// shims `S`, …) `path::{closure#N}` or `path::{shim:name#N}`.
    private mutating func nestedPath(inValue: Bool) throws {
        let namespace = try next()
        try path(inValue: inValue)
        let index = try disambiguator()
        let name = try identifier()
        if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(namespace) {
            let kind =
                namespace == UInt8(ascii: "C")
                ? "closure" : namespace == UInt8(ascii: "S") ? "shim" : String(UnicodeScalar(namespace))
            print("::{" + kind + (name.isEmpty ? "" : ":" + name) + "#\(index)}")
        } else if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(namespace) {
            guard !name.isEmpty else { throw Invalid() }
            print("::" + name)
        } else {
            throw Invalid()
        }
    }

    /// `I path {generic-arg} E`: `path::<A, B>` in a value, `path<A, B>` in a type.
    private mutating func genericPath(inValue: Bool) throws {
        try path(inValue: inValue)
        print(inValue ? "::<" : "<")
        var first = true
        while try !eat(UInt8(ascii: "E")) {
            if !first { print(", ") }
            first = false
            try genericArgument()
        }
        print(">")
    }

    /// A lifetime (`L`), a const (`K`) or a type.
    private mutating func genericArgument() throws {
        if try eat(UInt8(ascii: "L")) {
            try lifetime(try base62())
        } else if try eat(UInt8(ascii: "K")) {
            try constant()
        } else {
            try type()
        }
    }

    // MARK: Pieces

    /// `B base-62-number`: parses what starts at that position (counted from after `_R`), which
    /// must lie before this reference, then carries on after it.
    mutating func backReference(_ parse: (inout RustV0Demangler) throws -> Void) throws {
        let start = position - 1
        let target = try base62()
        guard target < UInt64(start) else { throw Invalid() }
        let resume = position
        position = Int(target)
        try parse(&self)
        position = resume
    }

    /// `[s base-62-number]`: 0 when absent, else the number plus 1.
    mutating func disambiguator() throws -> UInt64 {
        guard try eat(UInt8(ascii: "s")) else { return 0 }
        let value = try base62()
        guard value < UInt64.max else { throw Invalid() }
        return value + 1
    }

    /// `[u] decimal [_] bytes`: an identifier; a `u` one is Punycode, shown undecoded as
    /// `punycode{…}` (as rustc-demangle does for one it cannot decode).
    mutating func identifier() throws -> String {
        let isPunycode = try eat(UInt8(ascii: "u"))
        let length = try decimal()
        _ = try eat(UInt8(ascii: "_"))
        guard length <= bytes.count - position else { throw Invalid() }
        let raw = bytes[position..<(position + length)]
        position += length
        guard let text = String(validating: raw, as: UTF8.self) else { throw Invalid() }
        return isPunycode ? "punycode{\(text)}" : text
    }

    /// `0` or a decimal number without leading zeros.
    mutating func decimal() throws -> Int {
        guard let first = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { throw Invalid() }
        position += 1
        if first == UInt8(ascii: "0") { return 0 }
        var value = Int(first - UInt8(ascii: "0"))
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            position += 1
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            guard value <= bytes.count else { throw Invalid() }
        }
        return value
    }

    /// `_` is 0; otherwise digits `0-9a-zA-Z` then `_`, the value plus 1.
    mutating func base62() throws -> UInt64 {
        if try eat(UInt8(ascii: "_")) { return 0 }
        var value: UInt64 = 0
        while try !eat(UInt8(ascii: "_")) {
            let byte = try next()
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): digit = UInt64(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): digit = UInt64(byte - UInt8(ascii: "A")) + 36
            default: throw Invalid()
            }
            let (times, overflow) = value.multipliedReportingOverflow(by: 62)
            guard !overflow, times <= UInt64.max - digit - 1 else { throw Invalid() }
            value = times + digit
        }
        return value + 1
    }

    /// `'_` for an erased lifetime (0), else the name of bound lifetime `index` counted from the
    /// innermost binder: `'a`, `'b`, … then `'_N`.
    mutating func lifetime(_ index: UInt64) throws {
        guard index > 0 else { return print("'_") }
        guard index <= UInt64(boundLifetimes) else { throw Invalid() }
        let depth = UInt64(boundLifetimes) - index
        print(depth < 26 ? "'" + String(UnicodeScalar(UInt8(ascii: "a") + UInt8(depth))) : "'_\(depth)")
    }

    // MARK: Reading and writing

    mutating func print(_ text: String) {
        guard printing else { return }
        output += text
    }

    func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    mutating func next() throws -> UInt8 {
        guard let byte = peek() else { throw Invalid() }
        position += 1
        return byte
    }

    /// Consumes `byte` if it comes next.
    mutating func eat(_ byte: UInt8) throws -> Bool {
        guard peek() == byte else { return false }
        position += 1
        return true
    }

    /// Runs `body` one level deeper; throws past `depthLimit` or `stepLimit`, or once the output is
    /// too long.
    mutating func nested(_ body: (inout RustV0Demangler) throws -> Void) throws {
        depth += 1
        steps += 1
        defer { depth -= 1 }
        guard depth <= Self.depthLimit, steps <= Self.stepLimit, output.utf8.count <= Self.outputLimit else {
            throw Invalid()
        }
        try body(&self)
    }
}
