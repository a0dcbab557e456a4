import Foundation

/// A decoded thumbnail.
struct Thumbnail {
    var row: Int
    var checksum: UInt64
}

/// "Decodes" an image: real work over its bytes (PNG-style Paeth unfiltering, over and over)
/// until the row's decode cost has been spent, so a stall lasts the same on any machine.
enum ImageDecoder {
    /// Decodes `data` for `budgetNs` of wall time.
    @inline(never)
    static func decodeImage(_ data: Data, row: Int, budgetNs: UInt64) -> Thumbnail {
        let deadline = monotonicNs() + budgetNs
        var checksum: UInt64 = 0
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            repeat {
                checksum &+= unfilterPass(bytes)
            } while monotonicNs() < deadline
        }
        return Thumbnail(row: row, checksum: checksum)
    }

    /// Decodes a slice of at most `sliceNs`; returns the checksum contribution.
    @inline(never)
    static func decodeImageSlice(_ data: Data, sliceNs: UInt64) -> UInt64 {
        let deadline = monotonicNs() + sliceNs
        var checksum: UInt64 = 0
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            repeat {
                checksum &+= unfilterPass(bytes)
            } while monotonicNs() < deadline
        }
        return checksum
    }

    /// One Paeth pass over 256-byte rows; inlined so samples land in the decode function.
    @inline(__always)
    private static func unfilterPass(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var sum: UInt64 = 0
        var previous = [UInt8](repeating: 0, count: 256)
        var offset = 0
        while offset + 256 <= min(bytes.count, 16_384) {
            var left: UInt8 = 0
            for column in 0..<256 {
                let up = previous[column]
                let upLeft = column > 0 ? previous[column - 1] : 0
                let predictor = Int(left) + Int(up) - Int(upLeft)
                let pa = abs(predictor - Int(left))
                let pb = abs(predictor - Int(up))
                let pc = abs(predictor - Int(upLeft))
                let base = pa <= pb && pa <= pc ? left : (pb <= pc ? up : upLeft)
                let value = bytes[offset + column] &+ base
                previous[column] = value
                left = value
                sum &+= UInt64(value)
            }
            offset += 256
        }
        return sum
    }
}
