/// What is wrong with a `--push-gateway` URL or a `--label`.
public enum PushGatewayError: Error, Equatable, CustomStringConvertible {
    case badURL(String, String)
    case badLabel(String, String)

    public var description: String {
        switch self {
        case .badURL(let url, let fix): "invalid --push-gateway '\(QuotedText.printable(url, limit: 200))': \(fix)"
        case .badLabel(let label, let fix): "invalid --label '\(QuotedText.printable(label, limit: 200))': \(fix)"
        }
    }
}
