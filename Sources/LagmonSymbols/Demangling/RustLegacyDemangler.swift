/// Rust's legacy mangling: an Itanium nested name (`N`, length-prefixed identifiers, `E`) whose
/// last identifier is `h` and 16 hex digits (the hash, which tells Rust from C++), with `$…$`
/// escapes for punctuation (`$LT$` `<`, `$u7b$` `{`) and `..` for `::`.
enum RustLegacyDemangler {
    /// The symbol after `_ZN`; nil unless it is a well-formed Rust legacy name.
    static func demangle(_ bytes: [UInt8]) -> RustSymbol? {
        guard let components = components(bytes), components.count >= 2, isHash(components[components.count - 1])
        else { return nil }
        var parts: [String] = []
        for component in components.dropLast() {
            guard let text = unescape(component) else { return nil }
            parts.append(text)
        }
        return RustSymbol(name: parts.joined(separator: "::"), crate: crate(of: parts[0]))
    }

    /// The length-prefixed identifiers up to `E` (what may follow, `.llvm.1234`, is ignored).
    private static func components(_ bytes: [UInt8]) -> [ArraySlice<UInt8>]? {
        var index = 0
        var components: [ArraySlice<UInt8>] = []
        while index < bytes.count, bytes[index] != UInt8(ascii: "E") {
            var length = 0
            while index < bytes.count, let digit = decimal(bytes[index]) {
                length = length * 10 + digit
                guard length <= bytes.count else { return nil }
                index += 1
            }
            guard length > 0, index + length <= bytes.count, components.count < 1024 else { return nil }
            components.append(bytes[index..<(index + length)])
            index += length
        }
        return index < bytes.count ? components : nil
    }

    /// `h` and 16 lowercase hex digits.
    private static func isHash(_ component: ArraySlice<UInt8>) -> Bool {
        component.count == 17 && component.first == UInt8(ascii: "h")
            && component.dropFirst().allSatisfy {
                decimal($0) != nil || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    private static let escapes: [String: String] = [
        "SP": "@", "BP": "*", "RF": "&", "LT": "<", "GT": ">", "LP": "(", "RP": ")", "C": ",",
    ]

    /// The identifier with its escapes replaced; nil for an unknown escape.
    private static func unescape(_ component: ArraySlice<UInt8>) -> String? {
        var text = String(decoding: component, as: UTF8.self)
        // A leading `_` only protects an identifier starting with `$`.
        if text.hasPrefix("_$") { text.removeFirst() }
        var result = ""
        var rest = Substring(text)
        while let first = rest.first {
            if first == "$" {
                guard let end = rest.dropFirst().firstIndex(of: "$") else { return nil }
                let code = String(rest[rest.index(after: rest.startIndex)..<end])
                guard let replacement = escapes[code] ?? unicode(code) else { return nil }
                result += replacement
                rest = rest[rest.index(after: end)...]
            } else if rest.hasPrefix("..") {
                result += "::"
                rest = rest.dropFirst(2)
            } else {
                result.append(first)
                rest = rest.dropFirst()
            }
        }
        return result
    }

    /// `u7b` → `{`: a code point in hex.
    private static func unicode(_ code: String) -> String? {
        guard code.first == "u", code.count <= 7, let value = UInt32(code.dropFirst(), radix: 16),
            let scalar = Unicode.Scalar(value)
        else { return nil }
        return String(Character(scalar))
    }

    /// The crate of a path starting with `first`: the identifier itself, or for a trait impl's
    /// `<myapp::Conn as core::future::Future>` the implementing type's crate (legacy names do not
    /// say where the impl is), and the trait's when the type is no path (`<u64 as Step>`: only a
    /// primitive's or the trait's crate may write that impl, and primitives are core's).
    private static func crate(of first: String) -> String {
        guard first.hasPrefix("<") else { return first }
        let inner = first.dropFirst()
        guard let separator = inner.firstRange(of: " as ") else { return firstIdentifier(inner) }
        let type = inner[..<separator.lowerBound]
        return type.contains("::") ? firstIdentifier(type) : firstIdentifier(inner[separator.upperBound...])
    }

    /// The first identifier of a type, past `&`, `*const `, `mut `, `dyn `, `[` and `(`.
    private static func firstIdentifier(_ text: Substring) -> String {
        var rest = text.drop { !($0.isLetter || $0 == "_") }
        for keyword in ["mut ", "const ", "dyn "] where rest.hasPrefix(keyword) {
            rest = rest.dropFirst(keyword.count).drop { !($0.isLetter || $0 == "_") }
        }
        return String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }

    private static func decimal(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }
}
