/// The first key that appears twice in one JSON object: JSONDecoder keeps one of the two values
/// without a word, so `{"budgets": [], "budgets": [...]}` would pass as whatever it picked. A
/// small scanner over the text (strings decoded, so `"a"` and `"\u0061"` are the same key); it
/// looks only at structure and assumes nothing else about the document.
public struct DuplicateJSONKey: Equatable, Sendable, CustomStringConvertible {
    /// The duplicated key, decoded.
    public var key: String
    /// Where the object holding it is, as `budgets[2]` (empty for the top level).
    public var objectPath: String

    public init(key: String, objectPath: String) {
        self.key = key
        self.objectPath = objectPath
    }

    public var description: String {
        let quoted = "\"\(QuotedText.printable(key, limit: 60))\""
        return objectPath.isEmpty ? "duplicate key \(quoted)" : "duplicate key \(quoted) in \(objectPath)"
    }

    /// The first duplicate in `bytes`; nil when there is none or the text is not JSON (the
    /// decoder says so then).
    public static func find(in bytes: [UInt8]) -> DuplicateJSONKey? {
        var scanner = Scanner(bytes: bytes)
        return scanner.run()
    }

    /// One open container: an object's keys so far and the key whose value is being read, or an
    /// array's next index.
    private enum Container {
        case object(keys: Set<String>, current: String?)
        case array(index: Int)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0
        var stack: [Container] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func run() -> DuplicateJSONKey? {
            // In an object, a string is a key when the next significant byte is a colon.
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "{"):
                    stack.append(.object(keys: [], current: nil))
                    position += 1
                case UInt8(ascii: "["):
                    stack.append(.array(index: 0))
                    position += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard stack.popLast() != nil else { return nil }
                    position += 1
                case UInt8(ascii: ","):
                    if case .array(let index) = stack.last { stack[stack.count - 1] = .array(index: index + 1) }
                    position += 1
                case UInt8(ascii: "\""):
                    guard let text = string() else { return nil }
                    if case .object = stack.last, nextIsColon(), case .object(var keys, _) = stack.removeLast() {
                        // Taken off the stack while it grows: one copy of the set, not one per key.
                        let inserted = keys.insert(text).inserted
                        stack.append(.object(keys: keys, current: text))
                        if !inserted { return DuplicateJSONKey(key: text, objectPath: path()) }
                    }
                default:
                    position += 1
                }
            }
            return nil
        }

        /// The path of the innermost open container, as `budgets[2]`.
        private func path() -> String {
            var text = ""
            for container in stack.dropLast() {
                switch container {
                case .object(_, let current): text += (text.isEmpty ? "" : ".") + (current ?? "?")
                case .array(let index): text += "[\(index)]"
                }
            }
            return text
        }

        private mutating func nextIsColon() -> Bool {
            var look = position
            while look < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[look]) { look += 1 }
            return look < bytes.count && bytes[look] == UInt8(ascii: ":")
        }

        /// The string starting at `position` (a quote), decoded; moves past its closing quote.
        private mutating func string() -> String? {
            position += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == UInt8(ascii: "\"") {
                    flush()
                    return String(scalars)
                }
                guard byte == UInt8(ascii: "\\") else {
                    raw.append(byte)
                    continue
                }
                flush()
                guard let scalar = escape() else { return nil }
                scalars.append(scalar)
            }
            return nil
        }

        /// The escape after a backslash; a lone surrogate reads as U+FFFD.
        private mutating func escape() -> Unicode.Scalar? {
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let high = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(high), position + 1 < bytes.count,
                    bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
                {
                    position += 2
                    guard let low = hex4() else { return nil }
                    if (0xDC00..<0xE000).contains(low) {
                        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                    }
                    return "\u{FFFD}"
                }
                return Unicode.Scalar(high) ?? "\u{FFFD}"
            default: return Unicode.Scalar(byte)
            }
        }

        private mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[position..<position + 4] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
                value = value << 4 | UInt32(digit)
            }
            position += 4
            return value
        }
    }
}
