/// A decoded thumbnail.
struct Thumbnail {
    var row: Int
    var checksum: UInt64
}
