/// The request line of an HTTP/1.x request head: method and path (the query dropped).
public struct HTTPRequestLine: Sendable, Equatable {
    public var method: String
    public var path: String

    public init(method: String, path: String) {
        self.method = method
        self.path = path
    }

    /// Parses the first line of `head`; nil unless it is `METHOD SP TARGET SP HTTP/1.x`.
    public static func parse(_ head: [UInt8]) -> HTTPRequestLine? {
        let line = head.prefix { $0 != 13 && $0 != 10 }
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)), !parts[0].isEmpty,
            parts[0].allSatisfy({ (65...90).contains($0) }), parts[1].first == UInt8(ascii: "/")
        else { return nil }
        let target = parts[1].prefix { $0 != UInt8(ascii: "?") }
        return HTTPRequestLine(
            method: String(decoding: parts[0], as: UTF8.self), path: String(decoding: target, as: UTF8.self))
    }
}
