import CZlib
import LagmonCore

/// gzip compression with the system's zlib, in one call: the whole input is in memory anyway.
/// The output has no file name and a zero mtime, so it is deterministic.
public enum Gzip {
    /// zlib refused (out of memory, or a zlib that does not match its header).
    public struct Failure: Error, CustomStringConvertible {
        /// zlib's return code.
        public var code: Int32
        public var description: String { "gzip compression failed (zlib error \(code))" }
    }

    /// `bytes` as a gzip member.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        let initialized = lagmon_deflate_init_gzip(&stream, level)
        guard initialized == Z_OK else { throw Failure(code: initialized) }
        defer { deflateEnd(&stream) }
        // The bound covers the gzip header and trailer too; one deflate call finishes.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        var input = bytes
        let result = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = destination.baseAddress
                stream.avail_out = UInt32(destination.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { throw Failure(code: result) }
        return Array(output.prefix(Int(stream.total_out)))
    }
}
