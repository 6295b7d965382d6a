import Foundation

extension Outbox {
    /// A write the outbox will never send, kept with the reason: the server refused it (a 4xx), or
    /// its stored row was damaged. Its `Idempotency-Key` says which write it was.
    ///
    /// ```swift
    /// import SluiceOutbox
    ///
    /// for letter in try outbox.deadLetters() {
    ///     print(letter.key, letter.reason)   // "9f1…", "the server answered 403 Forbidden"
    /// }
    /// ```
    public struct DeadLetter: Sendable, Hashable {
        /// The write's `Idempotency-Key`.
        public let key: String
        /// Why it will not be sent.
        public let reason: String
        /// When it was moved to the dead letters.
        public let moved: Date
    }
}
