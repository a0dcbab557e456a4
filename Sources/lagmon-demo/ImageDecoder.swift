import Foundation

/// "Decodes" an image: real work over its bytes (PNG-style Paeth unfiltering, over and over)
/// until the row's decode cost has been spent, so a stall lasts the same on any machine.
enum ImageDecoder {
    /// Decodes `data` for `budgetNs` of wall time. The whole loop is written out here, without
    /// helper functions or closures, so stack samples land in this function in debug builds too.
    @inline(never)
    static func decodeImage(_ data: Data, row: Int, budgetNs: UInt64) -> Thumbnail {
        let deadline = monotonicNs() + budgetNs
        let width = 256
        let count = min(data.count, 16_384) / width * width
        let pixels = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, 1))
        let previous = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: width)
        defer {
            pixels.deallocate()
            previous.deallocate()
        }
        _ = data.copyBytes(to: pixels, count: count)
        var checksum: UInt64 = 0
        repeat {
            previous.initialize(repeating: 0)
            var offset = 0
            while offset < count {
                var left: UInt8 = 0
                var column = 0
                while column < width {
                    let up = previous[column]
                    let upLeft = column > 0 ? previous[column - 1] : 0
                    let predictor = Int(left) + Int(up) - Int(upLeft)
                    let pa = predictor > Int(left) ? predictor - Int(left) : Int(left) - predictor
                    let pb = predictor > Int(up) ? predictor - Int(up) : Int(up) - predictor
                    let pc = predictor > Int(upLeft) ? predictor - Int(upLeft) : Int(upLeft) - predictor
                    let base = pa <= pb && pa <= pc ? left : (pb <= pc ? up : upLeft)
                    let value = pixels[offset + column] &+ base
                    previous[column] = value
                    left = value
                    checksum &+= UInt64(value)
                    column += 1
                }
                offset += width
            }
        } while monotonicNs() < deadline
        return Thumbnail(row: row, checksum: checksum)
    }
}
