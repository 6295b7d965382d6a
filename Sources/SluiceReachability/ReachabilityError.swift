/// The monitor could not be started (no netlink socket).
public struct ReachabilityError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
