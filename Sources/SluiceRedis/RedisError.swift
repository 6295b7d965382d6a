/// Why a command through a ``RedisConnectionPool`` failed: Redis unreachable, slow, refusing it,
/// or a reply over the limits. Each store turns it into its own public error.
package struct RedisError: Error, Sendable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
