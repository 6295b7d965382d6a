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
        writeData(Data(text.utf8))
    }

    static func writeData(_ data: Data) {
        FileHandle.standardOutput.write(data)
    }

    /// One line on standard error, prefixed with the program's name.
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("sluice: \(message)\n".utf8))
    }
}
