import Foundation

extension Client {
    /// Assembles a ``Client``: keeps middleware in the default order by ``MiddlewarePosition``, and
    /// adds, removes, replaces or toggles them by type without re-wiring the rest.
    ///
    /// ```swift
    /// import Sluice
    /// import SluiceCurl
    /// import SluiceLogging
    /// import SluiceRetry
    ///
    /// var builder = Client.Builder(transport: CurlTransport())
    /// builder.add(RetryMiddleware())        // lands at .retry
    /// builder.add(LoggingMiddleware())      // lands at .logging, outside retry, whatever the call order
    /// builder.add(AuditMiddleware())   // your own: .application unless you say otherwise
    /// builder.insert(AuditMiddleware(), before: RetryMiddleware.self)   // an explicit place
    /// builder.setEnabled(false, for: LoggingMiddleware.self)   // kept in place, skipped
    /// builder.setEnabled(true, for: LoggingMiddleware.self)    // back where it was
    /// builder.replace(RetryMiddleware.self, with: RetryMiddleware(policy: DefaultRetryPolicy(configuration: .init(maximumAttempts: 5))))
    /// builder.remove(AuditMiddleware.self)
    /// let client = builder.build()
    /// ```
    ///
    /// A disabled middleware keeps its slot, so turning it back on restores the same order.
    public struct Builder: Sendable {
        /// One middleware, where it sits, and whether it runs.
        public struct Entry: Sendable {
            /// The middleware.
            public let middleware: any Middleware
            /// Where it sits in the default order.
            public let position: MiddlewarePosition
            /// Whether the middleware runs; one turned off keeps its place.
            public var isEnabled: Bool

            func isOf(_ type: any Middleware.Type) -> Bool {
                ObjectIdentifier(Swift.type(of: middleware)) == ObjectIdentifier(type)
            }
        }

        /// The transport at the end of the chain.
        public var transport: any HTTPTransport
        /// The settings the client is built with.
        public var configuration: Configuration
        /// What ``EnvironmentConfigurable`` middleware read when the client is built; `nil` (the
        /// default) means the process's environment. Set it to pin a test or a tool to known values.
        public var environment: [String: String]?
        /// Every middleware, enabled or not, outermost first.
        public private(set) var entries: [Entry] = []

        /// A builder over `transport` holding one middleware: a ``RedirectMiddleware`` at
        /// ``MiddlewarePosition/redirects``, so redirects are followed hop by hop through the chain
        /// (replace it to change the limit, remove it to see every 3xx).
        public init(transport: any HTTPTransport, configuration: Configuration = .default) {
            self.transport = transport
            self.configuration = configuration
            entries = [Entry(middleware: RedirectMiddleware(), position: .redirects, isEnabled: true)]
        }

        /// The enabled middleware, outermost first.
        public var middlewares: [any Middleware] { entries.filter(\.isEnabled).map(\.middleware) }

        /// What ``build()`` composes: the enabled middleware, each ``EnvironmentConfigurable`` one
        /// as the environment asks (left out when it answers `nil`).
        public var resolvedMiddlewares: [any Middleware] {
            var environment: [String: String]?
            return middlewares.compactMap { middleware in
                guard let configurable = middleware as? any EnvironmentConfigurable else { return middleware }
                if environment == nil { environment = self.environment ?? ProcessInfo.processInfo.environment }
                return configurable.configured(by: environment ?? [:])
            }
        }

        /// The client.
        public func build() -> Client { Client(builder: self) }

        /// Adds `middleware` at `position` (its type's ``Middleware/defaultPosition`` when `nil`),
        /// after any already at that position.
        public mutating func add(_ middleware: some Middleware, at position: MiddlewarePosition? = nil) {
            let position = position ?? type(of: middleware).defaultPosition
            let index = entries.firstIndex { $0.position > position } ?? entries.endIndex
            entries.insert(Entry(middleware: middleware, position: position, isEnabled: true), at: index)
        }

        /// Puts `middleware` just outside the first middleware of type `other`, taking its position.
        /// When there is none, it goes to its own default position instead; the result says which.
        ///
        /// - Returns: whether a middleware of type `other` was there.
        @discardableResult
        public mutating func insert(_ middleware: some Middleware, before other: any Middleware.Type) -> Bool {
            guard let index = entries.firstIndex(where: { $0.isOf(other) }) else {
                add(middleware)
                return false
            }
            entries.insert(Entry(middleware: middleware, position: entries[index].position, isEnabled: true), at: index)
            return true
        }

        /// Removes every middleware of type `type`. Returns how many were removed.
        @discardableResult
        public mutating func remove(_ type: any Middleware.Type) -> Int {
            let before = entries.count
            entries.removeAll { $0.isOf(type) }
            return before - entries.count
        }

        /// Puts `middleware` in the place of every middleware of type `type`, keeping position and
        /// enabled state. Returns how many were replaced (0 adds nothing).
        @discardableResult
        public mutating func replace(_ type: any Middleware.Type, with middleware: some Middleware) -> Int {
            var count = 0
            for index in entries.indices where entries[index].isOf(type) {
                let old = entries[index]
                entries[index] = Entry(middleware: middleware, position: old.position, isEnabled: old.isEnabled)
                count += 1
            }
            return count
        }

        /// Turns every middleware of type `type` on or off, in place: a middleware turned off keeps
        /// its slot, so turning it back on restores the same order. Returns how many matched.
        @discardableResult
        public mutating func setEnabled(_ isEnabled: Bool, for type: any Middleware.Type) -> Int {
            var count = 0
            for index in entries.indices where entries[index].isOf(type) {
                entries[index].isEnabled = isEnabled
                count += 1
            }
            return count
        }

        /// Whether a middleware of type `type` is present (enabled or not).
        public func contains(_ type: any Middleware.Type) -> Bool { entries.contains { $0.isOf(type) } }

        /// Whether an enabled middleware of type `type` is present.
        public func isEnabled(_ type: any Middleware.Type) -> Bool {
            entries.contains { $0.isOf(type) && $0.isEnabled }
        }

        /// Appends `middlewares` in the order given, ignoring default positions (for
        /// ``Client/init(transport:middlewares:configuration:)``). Unless they include a
        /// ``RedirectMiddleware``, the builder's own goes outside them all, so each of them sees
        /// every hop as a request of its own.
        mutating func appendInOrder(_ middlewares: [any Middleware]) {
            if let index = entries.firstIndex(where: { $0.isOf(RedirectMiddleware.self) }) {
                let redirects = entries.remove(at: index)
                if !middlewares.contains(where: { $0 is RedirectMiddleware }) {
                    entries.insert(Entry(middleware: redirects.middleware, position: .application, isEnabled: redirects.isEnabled), at: 0)
                }
            }
            for middleware in middlewares {
                entries.append(Entry(middleware: middleware, position: .application, isEnabled: true))
            }
        }
    }
}
