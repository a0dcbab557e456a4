extension MappedFile {
    /// A reader of the file's bytes (with a descriptor of its own); nil when out of descriptors.
    public func reader() -> ELFFileReader? {
        ELFFileReader(duplicating: descriptor, size: size)
    }
}
