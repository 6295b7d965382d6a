extension StringProtocol {
    /// The text with every character that can drive a terminal written as a Swift escape
    /// (`\u{1B}`, `\r`, `\u{202E}`): ``TerminalText/escape(_:keepingLineBreaks:style:)``, the one
    /// escaping of what a peer sent on its way to a terminal. `package`: for the logger, the CLI,
    /// the HUD and error messages that quote a peer.
    ///
    /// ```swift
    /// import Sluice
    ///
    /// "OK\u{1B}]0;pwned\u{07}".escapingControlCharacters()   // "OK\u{1B}]0;pwned\u{07}" as text
    /// ```
    ///
    /// - Parameter keepingLineBreaks: keep LF and tab as they are, for multi-line text such as a body.
    package func escapingControlCharacters(keepingLineBreaks: Bool = false) -> String {
        TerminalText.escape(String(self), keepingLineBreaks: keepingLineBreaks)
    }
}

extension String {
    /// ``StringProtocol/escapingControlCharacters(keepingLineBreaks:)`` without generic dispatch:
    /// a log line escapes its URL and reason phrase on every call.
    package func escapingControlCharacters(keepingLineBreaks: Bool = false) -> String {
        TerminalText.escape(self, keepingLineBreaks: keepingLineBreaks)
    }
}

extension Substring {
    /// ``StringProtocol/escapingControlCharacters(keepingLineBreaks:)`` without generic dispatch.
    package func escapingControlCharacters(keepingLineBreaks: Bool = false) -> String {
        TerminalText.escape(String(self), keepingLineBreaks: keepingLineBreaks)
    }
}
