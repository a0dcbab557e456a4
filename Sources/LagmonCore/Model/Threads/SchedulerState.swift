/// The scheduler state of a thread, from the third field of /proc/<pid>/task/<tid>/stat.
public enum SchedulerState: String, Codable, Sendable {
    case running = "R"
    case sleeping = "S"
    case diskSleep = "D"
    case stopped = "T"
    case tracingStop = "t"
    case zombie = "Z"
    case dead = "X"
    case idle = "I"
    case parked = "P"
    case unknown = "?"
}
