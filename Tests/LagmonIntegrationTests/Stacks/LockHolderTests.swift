import Foundation
import LagmonCore
import LagmonTestSupport
import Testing

/// A loop stalled waiting for a lock names the lock and the thread holding it, with what that
/// thread was doing: `lagmon run` on the lock fixture (a C epoll loop whose main thread waits
/// 400 ms for a lock a worker named `lock-holder` holds while it spins in `hold_and_spin`).
@Suite(.serialized)
struct LockHolderTests {
    /// Runs the fixture in `mode` under lagmon; returns the result, the stall that waited on the
    /// lock, and the holder's tid as the fixture logged it.
    func run(_ mode: String) throws -> (LagmonResult, StallReport, Int32) {
        let result = try LagmonProcess.run(["run", "--", Binaries.lockFixture, mode])
        #expect(result.status == 0)
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("holder tid ") })
        let holderTid = try #require(Int32(line.dropFirst("holder tid ".count)))
        let report = try #require(result.report)
        // The wait is the longest busy period by far (400 ms; the loop's ticks take microseconds).
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs })
        #expect(stall.thread.tid == report.target.pid)
        #expect(stall.diagnosis.kind == .lock, "\(stall.diagnosis.text)")
        return (result, stall, holderTid)
    }

    @Test(arguments: [
        ("normal", "mutex"), ("recursive", "recursive mutex"), ("errorcheck", "error-checking mutex"),
        ("adaptive", "adaptive mutex"), ("pi", "PI mutex"), ("rwlock-writer", "rwlock"),
    ])
    func aLockWithAnOwnerNamesTheHolderAndWhereItWas(_ mode: String, _ kind: String) throws {
        let (result, stall, holderTid) = try run(mode)
        let lock = try #require(stall.lock)
        #expect(lock.kind == kind)
        let holder = try #require(lock.holder, "\(lock)")
        #expect(holder.tid == holderTid)
        #expect(holder.name == "lock-holder")
        #expect(holder.isWaiter == nil)
        #expect(holder.samples >= 3, "\(holder.samples) holder samples")
        #expect(holder.culprit?.symbol == "hold_and_spin")
        #expect(holder.stacks.first?.frames.contains { $0.symbol == "hold_and_spin" } == true)
        let said =
            "for a\(kind.first == "e" || kind.first == "a" ? "n" : "") \(kind) held by thread \(holderTid) \"lock-holder\" in hold_and_spin"
        #expect(
            stall.diagnosis.text.hasPrefix("waiting ") && stall.diagnosis.text.contains(said),
            "\(stall.diagnosis.text)")
        // The terminal summary says the same.
        #expect(result.stderr.contains(said), "\(result.stderr)")
    }

    /// Swift's `Synchronization.Mutex` is a `FUTEX_LOCK_PI` word holding its owner's tid here.
    @Test func aSwiftMutexNamesItsHolder() throws {
        let result = try LagmonProcess.run(["run", "--", Binaries.swiftLockFixture])
        #expect(result.status == 0)
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("holder tid ") })
        let holderTid = try #require(Int32(line.dropFirst("holder tid ".count)))
        let report = try #require(result.report)
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs })
        #expect(stall.diagnosis.kind == .lock)
        let lock = try #require(stall.lock)
        #expect(lock.kind == "Swift Mutex")
        let holder = try #require(lock.holder)
        #expect(holder.tid == holderTid && holder.name == "mutex-holder")
        #expect(holder.culprit?.symbol == "spinWhileHoldingTheMutex(milliseconds:)")
        let said =
            "for a Swift Mutex held by thread \(holderTid) \"mutex-holder\" in spinWhileHoldingTheMutex(milliseconds:)"
        #expect(stall.diagnosis.text.contains(said), "\(stall.diagnosis.text)")
    }

    @Test func aRwlockHeldByReadersCountsThemAndSaysNoOwnerIsRecorded() throws {
        let (_, stall, _) = try run("rwlock-readers")
        let lock = try #require(stall.lock)
        #expect(lock.kind == "rwlock")
        #expect(lock.holder == nil)
        #expect(lock.readers == 2)
        #expect(
            stall.diagnosis.text.contains("for a rwlock held by 2 readers (no owner recorded)"),
            "\(stall.diagnosis.text)")
    }

    @Test func aConditionVariableSaysPlainlyThatItHasNoOwner() throws {
        let (_, stall, _) = try run("condvar")
        let lock = try #require(stall.lock)
        #expect(lock.kind == "condition variable")
        #expect(lock.holder == nil)
        #expect(lock.noHolderReason == "condition variables record no owner")
        #expect(stall.diagnosis.text.contains("for a condition variable (condition variables record no owner)"))
    }

    /// A program not written for lagmon: CPython's `threading.Lock` is a POSIX semaphore here
    /// (`PyThread_acquire_lock_timed` → `sem_clockwait`), which records no owner; an asyncio
    /// coroutine waiting for one a spinning thread holds says so plainly instead of guessing.
    @Test func aCPythonThreadingLockSaysItIsASemaphoreWithoutOwner() throws {
        let result = try LagmonProcess.run(["run", "--", "python3", WaitCallLoopTests.asyncioFixture, "lock"])
        #expect(result.status == 0)
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("lock waited ") })
        let waitedMs = try #require(UInt64(line.dropFirst("lock waited ".count).prefix { $0.isNumber }))
        #expect(waitedMs >= 150, "\(line)")
        let report = try #require(result.report)
        let stall = try #require(report.stalls.max { $0.durationNs < $1.durationNs })
        #expect(stall.diagnosis.kind == .lock, "\(stall.diagnosis.text)")
        let lock = try #require(stall.lock)
        #expect(lock.kind == "semaphore")
        #expect(lock.holder == nil && lock.noHolderReason == "semaphores record no owner")
        #expect(
            stall.diagnosis.text.contains("for a semaphore (semaphores record no owner)"), "\(stall.diagnosis.text)")
    }
}
