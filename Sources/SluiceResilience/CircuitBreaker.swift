import Sluice

/// The circuits of every origin a ``CircuitBreakerMiddleware`` has seen: a pure state machine
/// over an injected clock, so its rules are tested without a network. At most `maxOrigins` are
/// kept; the one used longest ago goes first. `package`: for the tests.
package final class CircuitBreaker: Sendable {
    /// Whether a call may go.
    package enum Admission: Sendable, Equatable {
        /// It may; `isProbe` when it is one of a half-open circuit's probes.
        case allowed(isProbe: Bool)
        /// It may not: the circuit is open until `until` (or its probes are all out, `nil`);
        /// `failures` of the last `calls` failed when it opened.
        case rejected(until: ContinuousClock.Instant?, failures: Int, calls: Int)
    }

    /// The rules, from the middleware's configuration.
    package struct Rules: Sendable {
        package var window: CircuitBreakerMiddleware.Configuration.Window
        package var failureRateThreshold: Double
        package var minimumCalls: Int
        package var openDuration: Duration
        package var halfOpenProbes: Int
        package var maxOrigins: Int
    }

    /// One outcome bucket of a time window.
    private struct Bucket {
        var start: ContinuousClock.Instant
        var calls = 0
        var failures = 0
    }

    /// One origin's circuit.
    private struct Circuit {
        var state = CircuitState.closed
        /// A count window: the last outcomes, `true` for a failure, oldest first.
        var outcomes: [Bool] = []
        /// A time window: ten buckets, oldest first.
        var buckets: [Bucket] = []
        /// Failures and calls in the window when it last opened, for the error message.
        var openedAfter = (failures: 0, calls: 0)
        var probesOut = 0
        var probesPassed = 0
    }

    private let rules: Rules
    private let table: Locked<OriginTable<Circuit>>

    package init(rules: Rules) {
        self.rules = rules
        table = Locked(OriginTable(limit: rules.maxOrigins))
    }

    /// The state of `origin`'s circuit now (an open one whose wait is over is still `open` until
    /// a call comes).
    package func state(of origin: String) -> CircuitState {
        table.withLock { $0[origin]?.state ?? .closed }
    }

    /// How many origins are kept.
    package var originCount: Int { table.withLock { $0.count } }

    /// Whether a call to `origin` may go at `now`, and the event when it moves an open circuit to
    /// half-open.
    package func admit(_ origin: String, now: ContinuousClock.Instant) -> (Admission, CircuitBreakerEvent?) {
        table.withLock { table in
            var circuit = table[origin] ?? Circuit()
            var event: CircuitBreakerEvent?
            let admission: Admission
            if case .open(let until) = circuit.state, now >= until {
                circuit.state = .halfOpen
                circuit.probesOut = 0
                circuit.probesPassed = 0
                event = CircuitBreakerEvent(origin: origin, from: .open(until: until), to: .halfOpen, at: now)
            }
            switch circuit.state {
            case .closed:
                admission = .allowed(isProbe: false)
            case .open(let until):
                admission = .rejected(until: until, failures: circuit.openedAfter.failures, calls: circuit.openedAfter.calls)
            case .halfOpen:
                if circuit.probesOut + circuit.probesPassed < rules.halfOpenProbes {
                    circuit.probesOut += 1
                    admission = .allowed(isProbe: true)
                } else {
                    admission = .rejected(until: nil, failures: circuit.openedAfter.failures, calls: circuit.openedAfter.calls)
                }
            }
            table.store(circuit, for: origin)
            return (admission, event)
        }
    }

    /// Records a call's outcome; the event when it opens or closes the circuit. A call admitted
    /// while the circuit was closed that ends after it opened changes nothing.
    package func record(_ origin: String, failed: Bool, isProbe: Bool, now: ContinuousClock.Instant) -> CircuitBreakerEvent? {
        table.withLock { table in
            guard var circuit = table[origin] else { return nil }
            var event: CircuitBreakerEvent?
            switch (circuit.state, isProbe) {
            case (.halfOpen, true):
                circuit.probesOut = max(0, circuit.probesOut - 1)
                if failed {
                    circuit.state = .open(until: now + rules.openDuration)
                    event = CircuitBreakerEvent(origin: origin, from: .halfOpen, to: circuit.state, at: now)
                } else {
                    circuit.probesPassed += 1
                    if circuit.probesPassed >= rules.halfOpenProbes {
                        circuit = Circuit()
                        event = CircuitBreakerEvent(origin: origin, from: .halfOpen, to: .closed, at: now)
                    }
                }
            case (.closed, false):
                let (failures, calls) = add(failed, to: &circuit, now: now)
                if calls >= rules.minimumCalls, Double(failures) >= rules.failureRateThreshold * Double(calls) {
                    circuit.state = .open(until: now + rules.openDuration)
                    circuit.openedAfter = (failures, calls)
                    circuit.outcomes = []
                    circuit.buckets = []
                    event = CircuitBreakerEvent(origin: origin, from: .closed, to: circuit.state, at: now)
                }
            default:
                break
            }
            table.store(circuit, for: origin)
            return event
        }
    }

    /// A probe that ended without an outcome (its call was cancelled): its place is free again.
    package func release(_ origin: String, isProbe: Bool) {
        guard isProbe else { return }
        table.withLock { table in
            guard var circuit = table[origin], circuit.state == .halfOpen else { return }
            circuit.probesOut = max(0, circuit.probesOut - 1)
            table.store(circuit, for: origin)
        }
    }

    /// Adds an outcome to the window; the failures and calls it now holds.
    private func add(_ failed: Bool, to circuit: inout Circuit, now: ContinuousClock.Instant) -> (failures: Int, calls: Int) {
        switch rules.window {
        case .calls(let size):
            circuit.outcomes.append(failed)
            if circuit.outcomes.count > size { circuit.outcomes.removeFirst(circuit.outcomes.count - size) }
            return (circuit.outcomes.count { $0 }, circuit.outcomes.count)
        case .duration(let length):
            // Ten buckets of a tenth of the window each: memory stays the same at any rate.
            let width = length / 10
            circuit.buckets.removeAll { now - $0.start >= length }
            if circuit.buckets.last.map({ now - $0.start >= width }) ?? true {
                circuit.buckets.append(Bucket(start: now))
            }
            circuit.buckets[circuit.buckets.count - 1].calls += 1
            if failed { circuit.buckets[circuit.buckets.count - 1].failures += 1 }
            return circuit.buckets.reduce((0, 0)) { ($0.0 + $1.failures, $0.1 + $1.calls) }
        }
    }
}
