// A poll loop (Glibc's poll, which lagmon's probe sees) whose main thread waits for a
// Synchronization.Mutex that a thread named `mutex-holder` holds while it spins 400 ms in
// spinWhileHoldingTheMutex(). Pipes order the steps, never sleeps; stdout lines say what
// happened: `holder tid N`, `waiting for the mutex`, `got the mutex`, `done`.
import Glibc
import Synchronization

let mutex = Mutex<Int>(0)
nonisolated(unsafe) var holding: [Int32] = [0, 0]
nonisolated(unsafe) var waiting: [Int32] = [0, 0]

func say(_ line: String) {
    print(line)
    fflush(nil)
}

func post(_ descriptor: Int32) {
    var byte: UInt8 = 1
    guard write(descriptor, &byte, 1) == 1 else { exit(3) }
}

func awaitByte(_ descriptor: Int32) {
    var byte: UInt8 = 0
    guard read(descriptor, &byte, 1) == 1 else { exit(3) }
}

func nowNs() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// Spins for `milliseconds` of wall time; the caller holds the mutex.
@inline(never)
func spinWhileHoldingTheMutex(milliseconds: Int64) -> Int {
    let until = nowNs() + milliseconds * 1_000_000
    var spins = 0
    while nowNs() < until {
        for _ in 0..<10_000 { spins &+= 1 }
    }
    return spins
}

/// Names the calling thread (Glibc's module has neither pthread_setname_np nor prctl).
func nameThisThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY)
    guard descriptor >= 0, write(descriptor, name, name.utf8.count) == name.utf8.count else { exit(3) }
    close(descriptor)
}

/// The calling thread's id, from /proc/thread-self (a link to `<pid>/task/<tid>`).
func threadID() -> String {
    var target = [CChar](repeating: 0, count: 64)
    let count = readlink("/proc/thread-self", &target, target.count)
    guard count > 0 else { exit(3) }
    return String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .split(separator: "/").last.map(String.init) ?? ""
}

/// The holder thread's entry (a global function: a closure here would be main-actor isolated).
func holderThread(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    holder()
    return nil
}

func holder() {
    nameThisThread("mutex-holder")
    mutex.withLock { count in
        say("holder tid \(threadID())")
        post(holding[1])
        awaitByte(waiting[0])
        count += spinWhileHoldingTheMutex(milliseconds: 400)
    }
}

/// The main thread's wait: the stall.
@inline(never)
func waitForTheMutex() -> Int {
    mutex.withLock { $0 }
}

/// Runs `count` iterations of a poll loop that wakes every 20 ms (`idle` is never written).
func ticks(_ idle: Int32, _ count: Int) {
    for _ in 0..<count {
        var descriptor = pollfd(fd: idle, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, 20)
    }
}

guard pipe(&holding) == 0, pipe(&waiting) == 0 else { exit(3) }
say("pid \(getpid())")
var idle: [Int32] = [0, 0]
guard pipe(&idle) == 0 else { exit(3) }
ticks(idle[0], 5)
var thread = pthread_t()
pthread_create(&thread, nil, holderThread, nil)
awaitByte(holding[0])
say("waiting for the mutex")
post(waiting[1])
let spun = waitForTheMutex()
say("got the mutex")
ticks(idle[0], 5)
pthread_join(thread, nil)
say(spun > 0 ? "done" : "done (no spins)")
