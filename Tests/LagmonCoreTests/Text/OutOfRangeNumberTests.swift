import FoundationEssentials
import Testing

@testable import LagmonCore

/// Finding the number JSONDecoder rejects as "not valid JSON" when it only overflows its field.
struct OutOfRangeNumberTests {
    struct Sample: Decodable {
        var count: UInt64
        var status: Int32
        var ratio: Double
        var items: [Item]
    }

    struct Item: Decodable {
        var size: UInt32
    }

    static func decodes(_ bytes: [UInt8]) -> Bool {
        (try? JSONDecoder().decode(Sample.self, from: Data(bytes))) != nil
    }

    static func find(_ text: String) -> OutOfRangeNumber? {
        OutOfRangeNumber.find(in: Array(text.utf8), decodes: decodes)
    }

    @Test(
        arguments: [
            (
                #"{"count": -1, "status": 0, "ratio": 0.5, "items": []}"#,
                "count is -1, out of range: it takes a whole number from 0 to 18446744073709551615"
            ),
            (
                #"{"count": 1, "status": 4294967296, "ratio": 0.5, "items": []}"#,
                "status is 4294967296, out of range: it takes a whole number from -2147483648 to 2147483647"
            ),
            (
                #"{"count": 1, "status": 0, "ratio": 0.5, "items": [{"size": 1}, {"size": 1e30}]}"#,
                "items.1.size is 1e+30, out of range: it takes a whole number from 0 to 4294967295"
            ),
            (
                #"{"count": 2.5, "status": 0, "ratio": 0.5, "items": []}"#,
                "count is 2.5, out of range: it takes a whole number from 0 to 18446744073709551615"
            ),
        ] as [(String, String)])
    func namesTheFieldAndItsRange(text: String, message: String) {
        #expect(Self.find(text)?.description == message)
    }

    @Test func notJSONOrAMissingFieldIsNotANumberProblem() {
        #expect(Self.find(#"{"count": 1,"#) == nil)
        #expect(Self.find(#"{"count": 1, "status": 0, "ratio": 0.5}"#) == nil)
    }
}
