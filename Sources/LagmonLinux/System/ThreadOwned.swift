import Glibc
import Synchronization

/// State owned by one thread at a time (swift-nio's `NIOLoopBound`): a worker's state lives here
/// and only its owner touches it. The creator owns it first (to set it up); the worker thread
/// `claim()`s it when it starts, and whoever joined that thread claims it back to read what was
/// gathered. Thread creation and join order those hand-overs; debug builds check every access
/// against the owner recorded, so a touch from another thread fails in tests, not in a report.
final class ThreadOwned<State>: @unchecked Sendable {  // `state` is touched by its owner only (asserted)
    private var state: State
    /// The owning thread (`pthread_self`, cheap to read on every access).
    private let owner: Atomic<UInt>

    /// `state`, owned by the calling thread.
    init(_ state: State) {
        self.state = state
        owner = Atomic(pthread_self())
    }

    /// Makes the calling thread the owner: at a worker's start, and after the worker was joined.
    func claim() { owner.store(pthread_self(), ordering: .releasing) }

    /// The state, for its owner only (asserted in debug builds).
    var value: State {
        _read {
            assertOwner()
            yield state
        }
        _modify {
            assertOwner()
            yield &state
        }
    }

    /// Whether the calling thread owns the state.
    var isOwnedByCurrentThread: Bool { pthread_equal(owner.load(ordering: .acquiring), pthread_self()) != 0 }

    /// Fails a debug build when the calling thread is not the owner (`EventLoop.assertInEventLoop`).
    func assertOwner(file: StaticString = #fileID, line: UInt = #line) {
        assert(isOwnedByCurrentThread, "thread-owned state touched off its owning thread", file: file, line: line)
    }
}
