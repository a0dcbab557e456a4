import FoundationEssentials

/// The number that made valid JSON undecodable, found by trial: JSONDecoder says only "not
/// valid JSON" when a field gets a number its type cannot hold (`-1` or `1e30` for an unsigned
/// count), so each suspicious number is replaced in turn until the text decodes, and the range
/// that field accepts is probed the same way.
public struct OutOfRangeNumber: Equatable, Sendable, CustomStringConvertible {
    /// The field, as `loops.0.latency.maxNs`.
    public var path: String
    /// The value found there, as JSON.
    public var value: String
    /// What the field accepts, as `a whole number from 0 to 18446744073709551615`.
    public var accepted: String

    public var description: String { "\(path) is \(value), out of range: it takes \(accepted)" }

    /// Finds the number in `bytes` (valid JSON) that keeps `decodes` from succeeding; nil when
    /// the text is not JSON or no single number is to blame. Tries at most `limit` numbers.
    public static func find(in bytes: [UInt8], limit: Int = 400, decodes: ([UInt8]) -> Bool) -> OutOfRangeNumber? {
        guard let tree = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else { return nil }
        var numbers: [(path: [String], value: JSONValue)] = []
        collect(tree, at: [], into: &numbers)
        for (path, value) in numbers.sorted(by: { suspicion($0.value) > suspicion($1.value) }).prefix(limit) {
            guard let zero = text(tree, replacing: path, with: "0"), decodes(zero) else { continue }
            let accepts = { (literal: String) in text(tree, replacing: path, with: literal).map(decodes) ?? false }
            return OutOfRangeNumber(
                path: path.joined(separator: "."), value: literal(value), accepted: range(accepts))
        }
        return nil
    }

    /// Most suspicious first: beyond 64 bits, negative, beyond 32 bits, fractional.
    private static func suspicion(_ value: JSONValue) -> Int {
        switch value {
        case .double(let number) where abs(number) >= 9.2e18 || !number.isFinite: 4
        case .int(let number) where number < 0: 3
        case .int(let number) where number > Int64(Int32.max): 2
        case .double: 1
        default: 0
        }
    }

    private static func collect(
        _ value: JSONValue, at path: [String], into numbers: inout [(path: [String], value: JSONValue)]
    ) {
        switch value {
        case .int, .double: numbers.append((path, value))
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                collect(element, at: path + [String(index)], into: &numbers)
            }
        case .object(let members):
            for key in members.keys.sorted() { collect(members[key] ?? .null, at: path + [key], into: &numbers) }
        default: break
        }
    }

    /// The JSON text of `tree` with the value at `path` replaced by the number `literal`.
    private static func text(_ tree: JSONValue, replacing path: [String], with literal: String) -> [UInt8]? {
        let marker = "lagmon-number-probe-4f1c"
        guard let encoded = try? JSONEncoder().encode(replaced(tree, path[...], with: .string(marker))) else {
            return nil
        }
        let text = String(decoding: encoded, as: UTF8.self)
        return Array(text.replacing("\"\(marker)\"", with: literal).utf8)
    }

    private static func replaced(_ value: JSONValue, _ path: ArraySlice<String>, with new: JSONValue) -> JSONValue {
        guard let first = path.first else { return new }
        switch value {
        case .object(var members):
            members[first] = replaced(members[first] ?? .null, path.dropFirst(), with: new)
            return .object(members)
        case .array(var elements):
            guard let index = Int(first), elements.indices.contains(index) else { return value }
            elements[index] = replaced(elements[index], path.dropFirst(), with: new)
            return .array(elements)
        default: return value
        }
    }

    /// The widest range of the probed bounds the field accepts.
    private static func range(_ accepts: (String) -> Bool) -> String {
        let lows = ["-9223372036854775808", "-2147483648", "0"]
        let highs = ["18446744073709551615", "9223372036854775807", "4294967295", "2147483647"]
        let low = lows.first(where: accepts) ?? "0"
        let high = highs.first(where: accepts) ?? "0"
        return accepts("0.5") ? "a number from \(low) to \(high)" : "a whole number from \(low) to \(high)"
    }

    private static func literal(_ value: JSONValue) -> String {
        switch value {
        case .int(let number): String(number)
        case .double(let number): "\(number)"
        default: "?"
        }
    }
}
