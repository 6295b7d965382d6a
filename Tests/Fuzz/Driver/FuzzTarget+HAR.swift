import Foundation
import Sluice
import SluiceLogging

extension FuzzTarget {
    /// `HARReplayTransport(data:)`: a HAR file is read or refused with `.invalidHAR`.
    static let har = FuzzTarget(name: "har", summary: "the HAR reader") { data in
        do {
            _ = try HARReplayTransport(data: data)
        } catch let error as SluiceError {
            require(error.code == .invalidHAR, "reading failed with \(error.code): \(error)")
        } catch {
            require(false, "reading failed with \(type(of: error)): \(error)")
        }
    }
}
