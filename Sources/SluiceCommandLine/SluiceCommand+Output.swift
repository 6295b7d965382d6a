import Foundation
import Sluice
import SluiceCache
import SluiceCurl
import SluiceDownload
import SluiceGzip
import SluiceHUD
import SluiceHeaders
import SluiceLogging
import SluiceMultipart
import SluiceRetry
import SluiceSigning

/// Writing to standard output and standard error.
extension SluiceCommand {
    static func write(_ text: String) {
        SystemFile.write(Array(text.utf8), to: STDOUT_FILENO)
    }

    /// The response body to standard output. A reader that has gone (`sluice URL | head -1`) ends
    /// the call with curl's 23, as curl does, instead of reading the rest of the body for nobody.
    static func writeBody(_ data: Data) throws(SluiceError) {
        guard SystemFile.write(Array(data), to: STDOUT_FILENO) else {
            throw SluiceError(.writeFailed, "cannot write the body to standard output: \(String(cString: strerror(errno)))")
        }
    }

    /// A message on standard error, prefixed with the program's name, with anything in it that
    /// could drive a terminal escaped (it quotes servers, files and error messages); its own line
    /// breaks (a list of the nearest HAR entries) are kept.
    static func error(_ message: String) {
        SystemFile.warn("sluice: \(message.escapingControlCharacters(keepingLineBreaks: true))")
    }
}
