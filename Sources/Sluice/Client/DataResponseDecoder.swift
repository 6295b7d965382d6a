import Foundation

/// The body as it came: in memory, or read back from ``HTTPResponse/bodyFile``.
///
/// ```swift
/// import Sluice
///
/// let png = try await client.send(request, decoder: DataResponseDecoder())
/// ```
public struct DataResponseDecoder: ResponseDecoder {
    /// A decoder that returns the body as it is.
    public init() {}

    /// - Throws: `.decodingFailed` when the body was written to a file that cannot be read back.
    public func decode(_ response: HTTPResponse) throws(SluiceError) -> Data {
        guard let file = response.bodyFile else { return response.body }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw SluiceError(
                .decodingFailed, "cannot read the response body file \(file.path): \(error.localizedDescription)",
                underlying: error, stage: .client, response: response)
        }
    }
}
