import Foundation
import Sluice
import SluiceSigning
import SluiceTestSupport
import Testing

/// SluiceSigning's public numbers driven with every hostile value of ``CallerNumbers``.
@Suite("Caller numbers: SluiceSigning")
struct SigningCallerNumbersTests {
    /// A presigned URL expires in 1 to 604,800 seconds (AWS's week); anything else is refused,
    /// naming the number.
    @Test(.covers("AWSSigV4Signer.presign(_:date:expires:) expires"), arguments: CallerNumbers.ints + [604_800, 604_801])
    func presignExpiry(_ expires: Int) throws {
        let signer = AWSSigV4Signer(
            accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret", sessionToken: nil, region: "us-east-1", service: "s3", options: .s3)
        let request = HTTPRequest(url: URL(string: "https://b.s3.amazonaws.com/x")!)
        if (1...604_800).contains(expires) {
            #expect(try signer.presign(request, date: .now, expires: expires).absoluteString.contains("X-Amz-Expires=\(expires)"))
        } else {
            #expect { try signer.presign(request, date: .now, expires: expires) } throws: {
                "\($0)".contains("expire in 1 to 604800 seconds, not \(expires)")
            }
        }
    }
}
