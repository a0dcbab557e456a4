import Prometheus

/// The names and help texts of lagmon's Prometheus metrics, in one place (the registry refuses
/// one name with two help texts; docs/metrics.md lists the same).
enum MetricNames {
    private static func lagmon(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "lagmon", metricName: name, unitName: unit, helpText: help)
    }

    static var stalls: MetricNameDescriptor {
        lagmon("stalls", "total", "Stalls that ended, by process, loop and diagnosis.")
    }
    static var stallDuration: MetricNameDescriptor {
        lagmon("stall_duration", "seconds", "Duration of the stalls that ended.")
    }
    static var culprit: MetricNameDescriptor {
        lagmon(
            "stall_culprit_seconds", "total",
            "Stall time by culprit function, counted with each stall (20 culprits named, the rest as other; none: no stack samples)."
        )
    }
    static var blockingCalls: MetricNameDescriptor {
        lagmon(
            "blocking_calls", "total",
            "StrictMode: blocking calls made on loop threads, by call, at the end of a session (other: beyond the probe's table)."
        )
    }
    static var blockingCallTime: MetricNameDescriptor {
        lagmon(
            "blocking_call_seconds", "total", "StrictMode: time spent in blocking calls on loop threads, by call.")
    }
    static var threshold: MetricNameDescriptor {
        lagmon("stall_threshold", "seconds", "The stall threshold of this session.")
    }
    static var busy: MetricNameDescriptor {
        lagmon("loop_busy_seconds", "total", "Time the loop spent awake (completed busy periods).")
    }
    static var iterations: MetricNameDescriptor {
        lagmon("loop_iterations", "total", "Loop iterations (wake-ups) completed.")
    }
    /// The loop latency quantiles: one gauge each (a `quantile` label is for summaries only,
    /// which swift-prometheus does not offer; promtool rejects it on a gauge).
    static func latency(percentile: String) -> MetricNameDescriptor {
        lagmon(
            "loop_latency_p\(percentile)", "seconds",
            "The \(percentile)th percentile of the loop's busy periods since the session began.")
    }
    static var threadCPU: MetricNameDescriptor {
        lagmon(
            "thread_cpu_seconds", "total",
            "CPU time of the target's threads by name; the 10 busiest names have a series, the rest count as other.")
    }
    static var stackSamples: MetricNameDescriptor {
        lagmon("stack_samples", "total", "Stack samples taken of stalled loops and busy threads.")
    }
    static var samplesLost: MetricNameDescriptor {
        lagmon("samples_lost", "total", "Stack samples requested but not taken (thread gone, no stop in time).")
    }
    static var targetUp: MetricNameDescriptor {
        lagmon("target_up", "", "1 while the target runs and is watched, 0 after.")
    }
    static var restarts: MetricNameDescriptor {
        lagmon(
            "target_restarts", "total",
            "Times the watched process exited and lagmon attached to the one that replaced it (attach --name or --pid-file)."
        )
    }
    /// lagmon's own cost, under the names every Prometheus client gives its own process.
    static var ownCPU: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "process", metricName: "cpu_seconds", unitName: "total",
            helpText: "Total user and system CPU time spent in seconds.")
    }
    static var ownRSS: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "process", metricName: "resident_memory", unitName: "bytes",
            helpText: "Resident memory size in bytes.")
    }
}
