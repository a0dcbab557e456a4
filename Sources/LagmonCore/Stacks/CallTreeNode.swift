/// A node of a merged call tree: a frame and the samples that passed through it.
public struct CallTreeNode: Codable, Sendable, Equatable {
    /// The frame's function (or module+offset).
    public var name: String
    /// Its module.
    public var module: String
    /// Samples whose stack passes through this node.
    public var count: Int
    /// Callees, most samples first.
    public var children: [CallTreeNode]

    public init(name: String, module: String, count: Int, children: [CallTreeNode]) {
        self.name = name
        self.module = module
        self.count = count
        self.children = children
    }
}
