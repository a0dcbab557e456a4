import Foundation

/// Memory and disk caches for decoded thumbnails (the "cached" scenario).
/// Confined to the main thread, like everything in the list.
final class ThumbnailCache: @unchecked Sendable {
    var memory: [Int: Thumbnail] = [:]
    var disk: [Int: URL] = [:]
}
