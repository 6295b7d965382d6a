#if Tracing
    import Sluice

    extension MiddlewarePosition {
        /// A span per attempt (``AttemptTracingMiddleware``): inside retry and hedging (rank 640),
        /// so each attempt and each hedged copy is a span of its own; outside the circuit breaker
        /// (650), so a call it refuses is an attempt that failed at once; outside signing, so a
        /// signature covers the trace fields.
        ///
        /// ```swift
        /// import Sluice
        /// import SluiceTracing
        ///
        /// builder.add(AttemptTracingMiddleware())   // at .attemptTracing, its default position
        /// ```
        public static let attemptTracing = MiddlewarePosition(rank: 645, name: "attemptTracing")
    }
#endif
