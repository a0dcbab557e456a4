import LagmonCore

/// Another writer's bytes, gzipped (pprof profiles are stored that way).
public struct GzipWriter<Inner: ReportWriter>: ReportWriter {
    /// The writer whose output is compressed.
    public var inner: Inner

    public init(_ inner: Inner) {
        self.inner = inner
    }

    public func render(_ report: Report) throws -> [UInt8] {
        try Gzip.compress(inner.render(report))
    }
}
