import LagmonCore

extension SessionOptions {
    /// Where the outputs of `output` and these groups go, checked now (bad paths: 64).
    func sink(_ output: OutputOptions) throws -> OutputSink {
        try OutputSink(output: output, exports: exports, ci: ci)
    }

    /// The outputs to write once the session ended, into `sink`, judged by `budgets`.
    func outputs(_ output: OutputOptions, sink: OutputSink, budgets budgetList: [Budget]) -> SessionOutputs {
        SessionOutputs(
            output: output, exports: exports, ci: ci, sink: sink, budgets: budgetList, budgetsGiven: !budgets.isEmpty)
    }
}
