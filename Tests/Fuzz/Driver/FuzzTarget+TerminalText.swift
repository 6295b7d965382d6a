import Foundation
import Sluice

extension FuzzTarget {
    /// `TerminalText.escape`, the one escaping of what a peer sent on its way to a terminal, over
    /// the input read as UTF-8: nothing that can drive a terminal is left in any style (LF and tab
    /// only where line breaks are kept), escaping twice changes nothing more, and text with
    /// nothing to escape comes back as it is.
    static let terminalText = FuzzTarget(name: "terminal-text", summary: "escaping of peer text for a terminal") { data in
        let text = String(decoding: data, as: UTF8.self)
        for keepingLineBreaks in [false, true] {
            for style in [TerminalText.Style.swift, .json] {
                let escaped = TerminalText.escape(text, keepingLineBreaks: keepingLineBreaks, style: style)
                require(
                    !escaped.unicodeScalars.contains { TerminalText.isUnsafe($0, keepingLineBreaks: keepingLineBreaks) },
                    "a control is left in \(String(reflecting: escaped))")
                require(
                    TerminalText.escape(escaped, keepingLineBreaks: keepingLineBreaks, style: style) == escaped,
                    "escaping twice changed \(String(reflecting: escaped))")
                if !text.unicodeScalars.contains(where: { TerminalText.isUnsafe($0, keepingLineBreaks: keepingLineBreaks) }) {
                    require(escaped == text, "text with nothing to escape changed")
                }
            }
        }
        require(TerminalText.escape(bytes: data) == TerminalText.escape(text), "the bytes and the text they decode to escape differently")
    }
}
