import ArgumentParser

/// The demo's scenarios.
enum Scenario: String, ExpressibleByArgument, CaseIterable {
    case naive, cached, async, batched, lock, io, crash, hang, interruptible, idle, spin, noloop, many, threads
}
