/// Types and constants of the v0 grammar.
extension RustV0Demangler {
    /// The one-letter basic types.
    private static let basicTypes: [UInt8: String] = [
        UInt8(ascii: "a"): "i8", UInt8(ascii: "b"): "bool", UInt8(ascii: "c"): "char", UInt8(ascii: "d"): "f64",
        UInt8(ascii: "e"): "str", UInt8(ascii: "f"): "f32", UInt8(ascii: "h"): "u8", UInt8(ascii: "i"): "isize",
        UInt8(ascii: "j"): "usize", UInt8(ascii: "l"): "i32", UInt8(ascii: "m"): "u32", UInt8(ascii: "n"): "i128",
        UInt8(ascii: "o"): "u128", UInt8(ascii: "s"): "i16", UInt8(ascii: "t"): "u16", UInt8(ascii: "u"): "()",
        UInt8(ascii: "v"): "...", UInt8(ascii: "x"): "i64", UInt8(ascii: "y"): "u64", UInt8(ascii: "z"): "!",
        UInt8(ascii: "p"): "_",
    ]

    /// A type: basic, a path (an ADT), or built from others.
    mutating func type() throws {
        try nested {
            let tag = try $0.next()
            if let basic = Self.basicTypes[tag] { return $0.print(basic) }
            switch tag {
            case UInt8(ascii: "R"), UInt8(ascii: "Q"): try $0.reference(mutable: tag == UInt8(ascii: "Q"))
            case UInt8(ascii: "P"), UInt8(ascii: "O"):
                $0.print(tag == UInt8(ascii: "P") ? "*const " : "*mut ")
                try $0.type()
            case UInt8(ascii: "A"), UInt8(ascii: "S"): try $0.array(sized: tag == UInt8(ascii: "A"))
            case UInt8(ascii: "T"): try $0.tuple()
            case UInt8(ascii: "F"): try $0.functionType()
            case UInt8(ascii: "D"): try $0.dynamicTrait()
            case UInt8(ascii: "B"): try $0.backReference { try $0.type() }
            default:
                // A path: the tag is its first byte.
                $0.position -= 1
                try $0.path(inValue: false)
            }
        }
    }

    /// `R [lifetime] type` / `Q …`: `&T`, `&'a mut T` (an erased lifetime is not shown).
    private mutating func reference(mutable: Bool) throws {
        print("&")
        if try eat(UInt8(ascii: "L")) {
            let index = try base62()
            if index != 0 {
                try lifetime(index)
                print(" ")
            }
        }
        if mutable { print("mut ") }
        try type()
    }

    /// `A type const`: `[T; N]`; `S type`: `[T]`.
    private mutating func array(sized: Bool) throws {
        print("[")
        try type()
        if sized {
            print("; ")
            try constant()
        }
        print("]")
    }

    /// `T {type} E`: `(A, B)`, and `(A,)` for one element.
    private mutating func tuple() throws {
        print("(")
        var count = 0
        while try !eat(UInt8(ascii: "E")) {
            if count > 0 { print(", ") }
            try type()
            count += 1
        }
        print(count == 1 ? ",)" : ")")
    }

    /// `F [binder] [U] [K abi] {type} E type`: `unsafe extern "C" fn(A, B) -> R`.
    private mutating func functionType() throws {
        try binder {
            if try $0.eat(UInt8(ascii: "U")) { $0.print("unsafe ") }
            if try $0.eat(UInt8(ascii: "K")) {
                var abi = "C"
                if try !$0.eat(UInt8(ascii: "C")) {
                    // `extern "sysv64-unwind"` is mangled `sysv64_unwind`.
                    abi = String(try $0.identifier().map { $0 == "_" ? "-" : $0 })
                }
                $0.print("extern \"\(abi)\" ")
            }
            $0.print("fn(")
            var first = true
            while try !$0.eat(UInt8(ascii: "E")) {
                if !first { $0.print(", ") }
                first = false
                try $0.type()
            }
            $0.print(")")
            if try $0.eat(UInt8(ascii: "u")) { return }
            $0.print(" -> ")
            try $0.type()
        }
    }

    /// `D [binder] {path {p name type}} E lifetime`: `dyn Trait<Item = T> + Send`.
    private mutating func dynamicTrait() throws {
        print("dyn ")
        try binder {
            var first = true
            while try !$0.eat(UInt8(ascii: "E")) {
                if !first { $0.print(" + ") }
                first = false
                try $0.dynamicTraitBound()
            }
        }
        guard try eat(UInt8(ascii: "L")) else { throw Invalid() }
        let index = try base62()
        if index != 0 {
            print(" + ")
            try lifetime(index)
        }
    }

    /// One trait of a `dyn` type with its associated-type bindings, `Iterator<Item = u8>`.
    private mutating func dynamicTraitBound() throws {
        let start = output.utf8.count
        try path(inValue: false)
        var open = false
        while try eat(UInt8(ascii: "p")) {
            // Bindings go inside the trait's generic arguments when it has some.
            if !open, printing, output.utf8.count > start, output.hasSuffix(">") {
                output.removeLast()
                print(", ")
            } else {
                print(open ? ", " : "<")
            }
            open = true
            print(try identifier() + " = ")
            try type()
        }
        if open { print(">") }
    }

    /// `G base-62-number`: lifetimes bound for what `body` parses (`for<'a> fn(&'a u8)`).
    private mutating func binder(_ body: (inout RustV0Demangler) throws -> Void) throws {
        guard try eat(UInt8(ascii: "G")) else { return try body(&self) }
        // `G_` binds one lifetime: the number is the count less one.
        let count = try base62() &+ 1
        guard count <= 64 else { throw Invalid() }
        print("for<")
        for index in 0..<Int(count) {
            if index > 0 { print(", ") }
            let depth = boundLifetimes + index
            print(depth < 26 ? "'" + String(UnicodeScalar(UInt8(ascii: "a") + UInt8(depth))) : "'_\(depth)")
        }
        print("> ")
        boundLifetimes += Int(count)
        defer { boundLifetimes -= Int(count) }
        try body(&self)
    }

    // MARK: Constants

    /// A const generic argument: `p` (a placeholder, `_`), a back reference, or a basic type and
    /// its value in hex (`j` usize, `b` bool, `c` char, `n`-prefixed negatives).
    mutating func constant() throws {
        try nested {
            if try $0.eat(UInt8(ascii: "p")) { return $0.print("_") }
            if try $0.eat(UInt8(ascii: "B")) { return try $0.backReference { try $0.constant() } }
            let tag = try $0.next()
            guard let kind = Self.basicTypes[tag] else { throw Invalid() }
            let negative = try $0.eat(UInt8(ascii: "n"))
            let digits = try $0.hexDigits()
            $0.print(try Self.constantText(kind: kind, negative: negative, hex: digits))
        }
    }

    /// `{hex-digit} _`.
    private mutating func hexDigits() throws -> String {
        var digits = ""
        while try !eat(UInt8(ascii: "_")) {
            let byte = try next()
            guard
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte),
                digits.count < 64
            else { throw Invalid() }
            digits.append(Character(UnicodeScalar(byte)))
        }
        return digits
    }

    /// The value as Rust writes it; integers too wide for 64 bits stay in hex.
    private static func constantText(kind: String, negative: Bool, hex: String) throws -> String {
        let value = hex.isEmpty ? 0 : UInt64(hex, radix: 16)
        switch kind {
        case "bool":
            guard !negative, let value, value <= 1 else { throw Invalid() }
            return value == 1 ? "true" : "false"
        case "char":
            guard !negative, let value, value <= 0x10ffff, let scalar = Unicode.Scalar(UInt32(value)) else {
                throw Invalid()
            }
            return "'" + String(Character(scalar)) + "'"
        case "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize":
            let text = value.map { String($0) } ?? "0x" + hex
            return (negative ? "-" : "") + text
        default:
            throw Invalid()
        }
    }
}
