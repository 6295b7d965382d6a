/// A middleware a developer can switch or tune from the environment without changing code, such
/// as debug logging with `SLUICE_LOG=headers`. ``Client/Builder/build()`` asks every enabled one
/// for its environment-adjusted self, and leaves it out of the chain when it answers `nil`.
///
/// ```swift
/// import Sluice
///
/// extension TimingMiddleware: EnvironmentConfigurable {
///     func configured(by environment: [String: String]) -> (any Middleware)? {
///         environment["APP_TIMING"] == "1" ? self : nil
///     }
/// }
/// ```
public protocol EnvironmentConfigurable: Middleware {
    /// This middleware as `environment` asks for it, or `nil` to leave it out.
    func configured(by environment: [String: String]) -> (any Middleware)?
}
