import Foundation
import Sluice

/// The content codings of one response undone together, the last applied first, each bounded on
/// its own and all of them against the bytes on the wire (THREATS §14): no layer hands the next
/// more than ``pieceSize`` bytes at a time, so `gzip, gzip` holds a few pieces in memory, not
/// one layer's whole output; and the body as decoded is held to `GzipCodec.Limits.maximumRatio`
/// times the bytes received, not that ratio once per layer.
///
/// Fed chunks from the wire with ``feed(_:)``; ``next()`` gives the decoded body piece by piece,
/// `nil` when it needs the next chunk; ``finish()`` checks the end. Not synchronised: its owner
/// holds it inside a lock.
package final class GzipDecodingChain {
    /// The most bytes one layer produces at a time: a streamed answer's piece.
    package static let pieceSize = 256 << 10

    /// The decoders, in the order they run (the coding applied last first).
    private let layers: [GzipInflater]
    /// Each layer's input not read yet, and how far it has read it.
    private var pending: [Data]
    private var offsets: [Int]
    private let maximumRatio: Int
    /// The codings as the response named them (`gzip, gzip`), for errors.
    private let name: String
    private var wireBytes = 0
    private var decodedBytes = 0
    private var ended = false

    /// A chain that undoes `formats` (as `Content-Encoding` lists them: applied first, first)
    /// within `limits`, for a body read `whole` or streamed.
    package init(formats: [GzipCodec.Format], limits: GzipCodec.Limits, whole: Bool) {
        layers = formats.reversed().map { GzipInflater(format: $0, limits: limits, whole: whole) }
        pending = Array(repeating: Data(), count: layers.count)
        offsets = Array(repeating: 0, count: layers.count)
        maximumRatio = max(1, limits.maximumRatio)
        name = formats.map(\.rawValue).joined(separator: ", ")
    }

    /// Takes the next chunk from the wire: call it only once ``next()`` has said `nil`.
    package func feed(_ chunk: Data) {
        guard !layers.isEmpty, !chunk.isEmpty else { return }
        wireBytes += chunk.count
        layers[0].received(chunk.count)
        pending[0] = chunk
        offsets[0] = 0
    }

    /// The next piece of the decoded body, at most ``pieceSize`` bytes, or `nil` when the chain
    /// needs the next chunk from the wire.
    ///
    /// - Throws: `.bodyTooLarge` past a layer's limits or the whole chain's ratio;
    ///   `.invalidResponse` for a corrupt layer.
    package func next() throws(SluiceError) -> Data? {
        while true {
            // The innermost layer with work first: a layer's output is read to its end before the
            // layer outside it produces more, so each holds at most one piece.
            var index = layers.count - 1
            while index >= 0, offsets[index] == pending[index].count, !layers[index].holdsOutput { index -= 1 }
            guard index >= 0 else { return nil }
            let (piece, read) = try layers[index].decode(pending[index], from: offsets[index], maxOutput: Self.pieceSize)
            offsets[index] += read
            if offsets[index] == pending[index].count {
                pending[index] = Data()
                offsets[index] = 0
            }
            guard !piece.isEmpty else { continue }
            if index + 1 < layers.count {
                layers[index + 1].received(piece.count)
                pending[index + 1] = piece
                offsets[index + 1] = 0
                continue
            }
            decodedBytes += piece.count
            let ratio = wireBytes.multipliedReportingOverflow(by: maximumRatio)
            if layers.count > 1, !ratio.overflow, decodedBytes > ratio.partialValue {
                throw SluiceError(
                    .bodyTooLarge,
                    "decompression limit: the \(name) body expands more than \(maximumRatio)× its \(wireBytes) bytes on the wire, "
                        + "all its codings together (GzipCodec.Limits.maximumRatio)")
            }
            return piece
        }
    }

    /// Checks that every layer's stream ended where the body did (after ``next()`` said `nil`).
    ///
    /// - Throws: `.invalidResponse` for a layer cut short.
    package func finish() throws(SluiceError) {
        guard !ended else { return }
        ended = true
        for layer in layers { try layer.finish() }
    }

    /// Whether ``finish()`` has run.
    package var isFinished: Bool { ended }
}
