/// The version of Sluice, as the default `User-Agent` reports it.
///
/// ```swift
/// import Sluice
///
/// SluiceVersion.current          // "0.1.0"
/// ```
public enum SluiceVersion {
    public static let current = "0.1.0"
}
