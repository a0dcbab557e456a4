import LagmonCore
import Testing

/// Wire-format vectors from the protocol buffers encoding guide.
struct ProtobufEncoderTests {
    @Test func varintsAndKeys() {
        var encoder = ProtobufEncoder()
        encoder.uint64(1, 150)
        #expect(encoder.bytes == [0x08, 0x96, 0x01])
        encoder = ProtobufEncoder()
        encoder.uint64(2, 300)
        #expect(encoder.bytes == [0x10, 0xAC, 0x02])
        encoder = ProtobufEncoder()
        encoder.int64(1, -1)
        #expect(encoder.bytes == [0x08] + Array(repeating: 0xFF, count: 9) + [0x01])
    }

    @Test func zeroScalarsAreOmittedStringsAndMessagesAreNot() {
        var encoder = ProtobufEncoder()
        encoder.uint64(1, 0)
        encoder.bool(2, false)
        #expect(encoder.bytes.isEmpty)
        encoder.string(2, "testing")
        #expect(encoder.bytes == [0x12, 0x07] + Array("testing".utf8))
        encoder = ProtobufEncoder()
        encoder.string(6, "")
        encoder.message(3) { $0.uint64(1, 150) }
        #expect(encoder.bytes == [0x32, 0x00, 0x1A, 0x03, 0x08, 0x96, 0x01])
    }

    @Test func packedRepeatedIntegers() {
        var encoder = ProtobufEncoder()
        encoder.packedUInt64(4, [3, 270, 86942])
        #expect(encoder.bytes == [0x22, 0x06, 0x03, 0x8E, 0x02, 0x9E, 0xA7, 0x05])
        encoder = ProtobufEncoder()
        encoder.packedInt64(4, [])
        #expect(encoder.bytes.isEmpty)
    }
}
