import Foundation

/// A small protocol buffers reader for the tests, written apart from lagmon's encoder: decodes
/// the profile.proto fields the pprof export uses.
struct ProtobufReader {
    enum Field {
        case varint(UInt64)
        case bytes([UInt8])
    }

    struct Malformed: Error {}

    /// Every field of one message, in order, by number.
    static func fields(_ bytes: [UInt8]) throws -> [(number: Int, value: Field)] {
        var fields: [(Int, Field)] = []
        var index = 0
        while index < bytes.count {
            let key = try varint(bytes, &index)
            switch key & 7 {
            case 0: fields.append((Int(key >> 3), .varint(try varint(bytes, &index))))
            case 2:
                let length = Int(try varint(bytes, &index))
                guard index + length <= bytes.count else { throw Malformed() }
                fields.append((Int(key >> 3), .bytes(Array(bytes[index..<index + length]))))
                index += length
            default: throw Malformed()
            }
        }
        return fields
    }

    static func varint(_ bytes: [UInt8], _ index: inout Int) throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.count, shift < 64 else { throw Malformed() }
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A packed (or single) repeated integer field's values.
    static func integers(_ field: Field) throws -> [UInt64] {
        switch field {
        case .varint(let value): return [value]
        case .bytes(let packed):
            var values: [UInt64] = []
            var index = 0
            while index < packed.count { values.append(try varint(packed, &index)) }
            return values
        }
    }
}

/// The parts of a decoded pprof profile the tests check.
struct DecodedProfile {
    struct Sample {
        var locationIDs: [UInt64]
        var values: [Int64]
        /// Label key → string value or number.
        var labels: [String: String]
    }

    var sampleTypes: [(type: String, unit: String)] = []
    var samples: [Sample] = []
    var locationFunctions: [UInt64: UInt64] = [:]
    var functionNames: [UInt64: String] = [:]
    var mappingIDs: Set<UInt64> = []
    var strings: [String] = []
    var period: Int64 = 0

    init(_ bytes: [UInt8]) throws {
        let fields = try ProtobufReader.fields(bytes)
        strings = fields.filter { $0.number == 6 }.map { field in
            if case .bytes(let text) = field.value { return String(decoding: text, as: UTF8.self) }
            return ""
        }
        for field in fields {
            guard case .bytes(let message) = field.value, (1...5).contains(field.number) else {
                if field.number == 12, case .varint(let value) = field.value { period = Int64(bitPattern: value) }
                continue
            }
            let inner = try ProtobufReader.fields(message)
            switch field.number {
            case 1: sampleTypes.append((string(inner, 1), string(inner, 2)))
            case 2: samples.append(try sample(inner))
            case 3: mappingIDs.insert(number(inner, 1))
            case 4: locationFunctions[number(inner, 1)] = try lineFunction(inner)
            case 5: functionNames[number(inner, 1)] = string(inner, 2)
            default: break
            }
        }
    }

    private func number(_ fields: [(number: Int, value: ProtobufReader.Field)], _ field: Int) -> UInt64 {
        for item in fields where item.number == field { if case .varint(let value) = item.value { return value } }
        return 0
    }

    private func string(_ fields: [(number: Int, value: ProtobufReader.Field)], _ field: Int) -> String {
        let index = Int(number(fields, field))
        return index < strings.count ? strings[index] : "<bad index \(index)>"
    }

    private func lineFunction(_ fields: [(number: Int, value: ProtobufReader.Field)]) throws -> UInt64 {
        for item in fields where item.number == 4 {
            if case .bytes(let line) = item.value { return number(try ProtobufReader.fields(line), 1) }
        }
        return 0
    }

    private func sample(_ fields: [(number: Int, value: ProtobufReader.Field)]) throws -> Sample {
        var result = Sample(locationIDs: [], values: [], labels: [:])
        for item in fields {
            switch item.number {
            case 1: result.locationIDs += try ProtobufReader.integers(item.value)
            case 2: result.values += try ProtobufReader.integers(item.value).map { Int64(bitPattern: $0) }
            case 3:
                guard case .bytes(let label) = item.value else { continue }
                let parts = try ProtobufReader.fields(label)
                let key = string(parts, 1)
                result.labels[key] = number(parts, 2) != 0 ? string(parts, 2) : String(number(parts, 3))
            default: break
            }
        }
        return result
    }
}
