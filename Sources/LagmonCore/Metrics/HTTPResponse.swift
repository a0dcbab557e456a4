/// A complete HTTP/1.1 response that closes the connection.
public struct HTTPResponse: Sendable, Equatable {
    public var status: String
    public var contentType: String
    public var body: [UInt8]
    /// A HEAD answer: the headers of the body, not the body.
    public var headOnly = false

    public init(status: String, contentType: String, body: [UInt8], headOnly: Bool = false) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headOnly = headOnly
    }

    /// Status line, headers and body.
    public var bytes: [UInt8] {
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + (headOnly ? [] : body)
    }
}
