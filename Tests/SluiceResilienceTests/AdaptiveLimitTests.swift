import Testing

@testable import SluiceResilience

/// The limit's rules alone, in virtual time: a simulated server that serves `capacity` calls at
/// once and queues (or sheds) the rest, called by more callers than it can serve.
@Suite("AdaptiveLimit")
struct AdaptiveLimitTests {
    /// A server with `capacity` slots and a fixed service time, called by `callers` callers that
    /// send again as soon as they have an answer and a slot, under `limit`. Returns the limit after
    /// each answer, with the time it was read.
    struct Simulation {
        var limit: AdaptiveLimit
        var capacity: Int
        var service: Duration = .milliseconds(20)
        /// Whether a call finding every slot busy is answered 503 at once instead of queued.
        var sheds = false
        let callers = 64
        let start = ContinuousClock.now

        /// Runs for `duration` of virtual time from `from`; `capacity` may change between runs.
        mutating func run(from: Duration, for duration: Duration) -> [(at: Duration, limit: Int)] {
            var now = start + from
            let end = now + duration
            var slotsFree = [ContinuousClock.Instant](repeating: now, count: capacity)
            // Calls in flight: when it answers, when it was sent and in which epoch, whether it was shed.
            var inFlight: [(answer: ContinuousClock.Instant, sent: ContinuousClock.Instant, epoch: Int, shed: Bool)] = []
            var readings: [(at: Duration, limit: Int)] = []
            while now < end {
                // Every caller waiting sends while the limit allows (callers always outnumber it).
                while inFlight.count < min(callers, limit.permits) {
                    let slot = slotsFree.indices.min { slotsFree[$0] < slotsFree[$1] }!
                    if sheds, slotsFree[slot] > now {
                        inFlight.append((now + .milliseconds(1), now, limit.epoch, true))
                    } else {
                        let begins = max(now, slotsFree[slot])
                        slotsFree[slot] = begins + service
                        inFlight.append((begins + service, now, limit.epoch, false))
                    }
                }
                let next = inFlight.indices.min { inFlight[$0].answer < inFlight[$1].answer }!
                let call = inFlight.remove(at: next)
                now = call.answer
                limit.record(
                    latency: call.sent.duration(to: now), sent: call.sent, epoch: call.epoch, inFlight: inFlight.count + 1, overloaded: call.shed, now: now)
                readings.append((start.duration(to: now), limit.permits))
            }
            return readings
        }

        /// The median limit over the readings from `after` on.
        static func median(_ readings: [(at: Duration, limit: Int)], after: Duration) -> Int {
            let limits = readings.filter { $0.at >= after }.map(\.limit).sorted()
            return limits[limits.count / 2]
        }
    }

    /// The gradient settles where the server is full and its queue short: its capacity times the
    /// tolerance (1.5), plus the square root it allows as a queue (about 16 for 8 slots); when the
    /// server's capacity drops to 2 and latency climbs, the limit follows it down (about 5).
    @Test func theGradientSettlesNearTheServersCapacityAndFollowsItDown() {
        var simulation = Simulation(
            limit: AdaptiveLimit(rule: .gradient(tolerance: 1.5, smoothing: 0.2, probeInterval: 1000), initial: 20, min: 1, max: 1000), capacity: 8)
        let full = Simulation.median(simulation.run(from: .zero, for: .seconds(10)), after: .seconds(5))
        #expect((12...20).contains(full), "settled at \(full) for 8 slots")
        simulation.capacity = 2
        let slower = Simulation.median(simulation.run(from: .seconds(10), for: .seconds(10)), after: .seconds(15))
        #expect((2...7).contains(slower), "settled at \(slower) for 2 slots")
    }

    /// A path that becomes slower (every answer takes 60 ms instead of 20, at the same capacity) is
    /// not overload: the probes measure the new minimum, and the limit comes back to where it was.
    /// Without them the old minimum would hold it at the gradient's floor.
    @Test func aSlowerPathIsMeasuredAgainNotTakenForOverload() {
        var simulation = Simulation(
            limit: AdaptiveLimit(rule: .gradient(tolerance: 1.5, smoothing: 0.2, probeInterval: 1000), initial: 20, min: 1, max: 1000), capacity: 8)
        let before = Simulation.median(simulation.run(from: .zero, for: .seconds(10)), after: .seconds(5))
        simulation.service = .milliseconds(60)
        let after = Simulation.median(simulation.run(from: .seconds(10), for: .seconds(30)), after: .seconds(30))
        #expect(simulation.limit.minimum.map { $0 >= .milliseconds(60) } == true)
        #expect(abs(after - before) <= 3, "\(before) before, \(after) after")
    }

    /// With a tolerance of 1 the queue it allows is the square root alone: about 11 for 8 slots.
    @Test func aToleranceOfOneLeavesTheSquareRootAsTheQueue() {
        var simulation = Simulation(
            limit: AdaptiveLimit(rule: .gradient(tolerance: 1, smoothing: 0.2, probeInterval: 1000), initial: 20, min: 1, max: 1000), capacity: 8)
        let settled = Simulation.median(simulation.run(from: .zero, for: .seconds(10)), after: .seconds(5))
        #expect((9...14).contains(settled), "settled at \(settled) for 8 slots")
    }

    /// AIMD against a server that sheds what it cannot serve (a 503 at once) saws just under and
    /// over its capacity: up by one per round trip, down by a tenth on the 503s of a round.
    @Test func aimdSettlesAtTheCapacityOfAServerThatSheds() {
        var simulation = Simulation(limit: AdaptiveLimit(rule: .aimd(backoffRatio: 0.9, timeout: nil), initial: 20, min: 1, max: 1000), capacity: 8)
        simulation.sheds = true
        let readings = simulation.run(from: .zero, for: .seconds(10))
        let settled = Simulation.median(readings, after: .seconds(5))
        #expect((6...10).contains(settled), "settled at \(settled) for 8 slots")
        #expect(readings.filter { $0.at >= .seconds(5) }.allSatisfy { (5...12).contains($0.limit) })
    }

    /// AIMD with a timeout treats a slower answer as overload, and grows by one per round trip
    /// (a tenth of a call per answer at a limit of 10) only while the limit is in use.
    @Test func aimdGrowsOnlyWhileInUseAndBacksOffOnceARound() {
        let start = ContinuousClock.now
        var limit = AdaptiveLimit(rule: .aimd(backoffRatio: 0.5, timeout: .seconds(1)), initial: 10, min: 1, max: 100)
        // App-limited: 2 in flight of 10 says nothing of the server.
        limit.record(latency: .milliseconds(10), sent: start, epoch: 0, inFlight: 2, overloaded: false, now: start)
        #expect(limit.limit == 10)
        for _ in 0..<10 { limit.record(latency: .milliseconds(10), sent: start, epoch: 0, inFlight: 10, overloaded: false, now: start) }
        #expect(limit.permits == 10)
        limit.record(latency: .milliseconds(10), sent: start, epoch: 0, inFlight: 10, overloaded: false, now: start)
        #expect(limit.permits == 11)
        // A call slower than the timeout halves it; another of the same round does not.
        let later = start + .seconds(2)
        limit.record(latency: .seconds(2), sent: start, epoch: 0, inFlight: 11, overloaded: false, now: later)
        #expect(limit.permits == 5)
        limit.record(latency: .seconds(2), sent: start, epoch: 0, inFlight: 10, overloaded: true, now: later + .milliseconds(1))
        #expect(limit.permits == 5)
        // A call sent after the decrease lowers it again.
        limit.record(latency: .milliseconds(5), sent: later + .milliseconds(2), epoch: 0, inFlight: 5, overloaded: true, now: later + .milliseconds(7))
        #expect(limit.permits == 2)
        // Never under the minimum.
        for step in 1...10 {
            let sent = later + .seconds(step)
            limit.record(latency: nil, sent: sent, epoch: 0, inFlight: 1, overloaded: true, now: sent + .milliseconds(1))
        }
        #expect(limit.permits == 1)
    }

    /// Every `probeInterval` answers the gradient drops to the square root of its limit and forgets
    /// its minimum. It measures it again only once the calls in flight at the probe have answered
    /// (the server may be queueing them), from calls admitted after that.
    @Test func theGradientProbesForItsMinimumAgainOnceTheOldCallsAreOut() {
        let start = ContinuousClock.now
        var limit = AdaptiveLimit(rule: .gradient(tolerance: 1.5, smoothing: 0.2, probeInterval: 10), initial: 16, min: 1, max: 100)
        for step in 0..<9 {
            limit.record(latency: .milliseconds(20), sent: start, epoch: 0, inFlight: 16, overloaded: false, now: start + .milliseconds(step))
        }
        #expect(limit.minimum == .milliseconds(20))
        #expect(limit.permits > 16)  // latency at its minimum: the limit grows
        let grown = limit.limit
        // The tenth answer probes, with two other calls in flight.
        let probe = start + .milliseconds(9)
        limit.record(latency: .milliseconds(20), sent: start, epoch: 0, inFlight: 3, overloaded: false, now: probe)
        #expect(limit.minimum == nil)
        #expect(limit.limit == grown.squareRoot())
        #expect(limit.epoch == 1)
        // One old call answers; a call admitted after the probe answers before the other old one:
        // it may have queued behind it, and measures nothing.
        limit.record(latency: .milliseconds(90), sent: start, epoch: 0, inFlight: 3, overloaded: false, now: probe + .milliseconds(1))
        limit.record(latency: .milliseconds(25), sent: probe, epoch: 1, inFlight: 2, overloaded: false, now: probe + .milliseconds(2))
        #expect(limit.minimum == nil)
        // The last old call is out: a new epoch. Calls admitted before it still measure nothing.
        limit.record(latency: .milliseconds(90), sent: start, epoch: 0, inFlight: 2, overloaded: false, now: probe + .milliseconds(3))
        #expect(limit.epoch == 2)
        limit.record(latency: .milliseconds(40), sent: probe, epoch: 1, inFlight: 1, overloaded: false, now: probe + .milliseconds(30))
        #expect(limit.minimum == nil)
        limit.record(latency: .milliseconds(30), sent: probe, epoch: 2, inFlight: 1, overloaded: false, now: probe + .milliseconds(31))
        #expect(limit.minimum == .milliseconds(30))
    }

    /// Settings out of range are held to what can work.
    @Test func theLimitStaysWithinItsBounds() {
        #expect(AdaptiveLimit(rule: .aimd(backoffRatio: 0.9, timeout: nil), initial: 500, min: 1, max: 50).permits == 50)
        #expect(AdaptiveLimit(rule: .aimd(backoffRatio: 0.9, timeout: nil), initial: 0, min: 4, max: 50).permits == 4)
        #expect(AdaptiveLimit(rule: .aimd(backoffRatio: 0.9, timeout: nil), initial: 10, min: 0, max: 0).permits == 1)
    }
}
