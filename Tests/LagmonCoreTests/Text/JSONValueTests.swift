import FoundationEssentials
import LagmonCore
import Testing

/// JSON values of any shape: what budget files are read into.
struct JSONValueTests {
    func decode(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test func decodesEveryKindOfValue() throws {
        let value = try decode(#"{"s": "x", "i": -3, "d": 2.5, "b": true, "n": null, "a": [1, "y", [false]], "o": {}}"#)
        #expect(
            value
                == .object([
                    "s": .string("x"), "i": .int(-3), "d": .double(2.5), "b": .bool(true), "n": .null,
                    "a": .array([.int(1), .string("y"), .array([.bool(false)])]), "o": .object([:]),
                ]))
        #expect(try decode(#""fragment""#) == .string("fragment"))
        #expect(try decode("1e300") == .double(1e300))
        #expect(value.string == nil && JSONValue.string("x").string == "x")
    }

    @Test func encodesWhatItDecodes() throws {
        let text = #"{"a":[1,2.5,"x",null,true],"b":{"c":{}}}"#
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(try decode(text)), as: UTF8.self) == text)
    }

    @Test(arguments: ["", "{", "{ budgets: }", "[1, 2", "{} x", "1e999"])
    func rejectsWhatIsNotJSON(_ text: String) {
        #expect(throws: DecodingError.self) { try decode(text) }
    }
}
