import Glibc

/// The channel's shared memory as lagmon mapped it: owned here and unmapped when the last holder
/// (the channel, its slots' views) lets go. The target writes the same memory, so nothing reaches
/// it through `pointee` of a shared struct: fields are read and written at their byte offsets with
/// atomic loads and stores (CLagmonLinux), which is what makes sharing the address across threads
/// sound.
final class ChannelMapping: @unchecked Sendable {  // shared memory, reached only by atomics at offsets
    /// The mapping's first byte.
    let base: UnsafeMutableRawPointer
    /// Its length in bytes.
    let size: Int

    /// Takes ownership of the mapping at `base`, `size` bytes long.
    init(base: UnsafeMutableRawPointer, size: Int) {
        self.base = base
        self.size = size
    }

    deinit { munmap(base, size) }
}
