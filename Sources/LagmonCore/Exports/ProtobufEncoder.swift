/// Just enough of the protocol buffers wire format to write a message by hand: varints,
/// length-delimited fields and packed repeated integers (https://protobuf.dev/programming-guides/encoding/).
/// Scalars equal to zero are left out, as proto3 does; strings and messages are always written.
public struct ProtobufEncoder: Sendable {
    /// The message so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Wire types.
    enum WireType: UInt64 {
        case varint = 0
        case lengthDelimited = 2
    }

    /// An unsigned integer field (`uint64`, `uint32`, enum).
    public mutating func uint64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        key(field, .varint)
        varint(value)
    }

    /// A signed integer field (`int64`: two's complement, so negative values take ten bytes).
    public mutating func int64(_ field: Int, _ value: Int64) {
        uint64(field, UInt64(bitPattern: value))
    }

    /// A `bool` field.
    public mutating func bool(_ field: Int, _ value: Bool) {
        uint64(field, value ? 1 : 0)
    }

    /// A `string` field, written even when empty (a repeated string's empty element counts).
    public mutating func string(_ field: Int, _ value: String) {
        lengthDelimited(field, Array(value.utf8))
    }

    /// An embedded message field.
    public mutating func message(_ field: Int, _ build: (inout ProtobufEncoder) -> Void) {
        var nested = ProtobufEncoder()
        build(&nested)
        lengthDelimited(field, nested.bytes)
    }

    /// A packed `repeated uint64` field; nothing when empty.
    public mutating func packedUInt64(_ field: Int, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        var packed = ProtobufEncoder()
        for value in values { packed.varint(value) }
        lengthDelimited(field, packed.bytes)
    }

    /// A packed `repeated int64` field; nothing when empty.
    public mutating func packedInt64(_ field: Int, _ values: [Int64]) {
        packedUInt64(field, values.map { UInt64(bitPattern: $0) })
    }

    private mutating func lengthDelimited(_ field: Int, _ payload: [UInt8]) {
        key(field, .lengthDelimited)
        varint(UInt64(payload.count))
        bytes += payload
    }

    private mutating func key(_ field: Int, _ wireType: WireType) {
        varint(UInt64(field) << 3 | wireType.rawValue)
    }

    /// Seven bits at a time, least significant first, the high bit saying more follow.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}
