import Foundation
import Sluice
import SluiceCurl
import SluiceTestSupport
import SluiceTesting
import Testing

@Suite("CurlTransport TLS and HTTP/2 against nginx")
struct CurlTransportTLSTests {
    func tlsURL() throws -> URL { URL(string: try InteropServers.value("SLUICE_NGINX_TLS_URL") + "/small.json")! }

    func failure(_ transport: CurlTransport, _ url: URL) async throws -> SluiceError {
        do {
            let response = try await transport.send(HTTPRequest(url: url), context: RequestContext())
            Issue.record("expected a TLS failure, got \(response)")
            throw UnexpectedSuccess()
        } catch let error as SluiceError {
            return error
        }
    }

    @Test func trustsTheGivenCAAndSpeaksHTTP2ByALPN() async throws {
        let ca = try InteropServers.value("SLUICE_NGINX_CA")
        let secure = makeTransport { $0.tls.caFile = ca }
        let response = try await secure.send(HTTPRequest(url: try tlsURL()), context: RequestContext())
        #expect(response.status == .ok)
        #expect(response.metrics?.httpVersion == "2")
        #expect(response.metrics?.tlsHandshake != nil)
        #expect(response.body.count > 1000)
    }

    @Test func http1OnlyStaysOnHTTP1OverTLS() async throws {
        let ca = try InteropServers.value("SLUICE_NGINX_CA")
        let http1 = makeTransport {
            $0.tls.caFile = ca; $0.httpVersion = .http1_1
        }
        let response = try await http1.send(HTTPRequest(url: try tlsURL()), context: RequestContext())
        #expect(response.metrics?.httpVersion == "1.1")
    }

    @Test func anUntrustedCertificateIsATLSFailure() async throws {
        let error = try await failure(makeTransport(), try tlsURL())
        #expect(error.code == .tlsFailure)
        #expect((error.underlying as? CurlError)?.code == 60)
    }

    @Test func theRightPinPassesAndAWrongPinFails() async throws {
        let ca = try InteropServers.value("SLUICE_NGINX_CA"), pin = try InteropServers.value("SLUICE_NGINX_PIN")
        let pinned = makeTransport {
            $0.tls.caFile = ca; $0.tls.pinnedPublicKey = pin
        }
        #expect(try await pinned.send(HTTPRequest(url: try tlsURL()), context: RequestContext()).status == .ok)

        let wrong = makeTransport {
            $0.tls.caFile = ca; $0.tls.pinnedPublicKey = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        }
        let error = try await failure(wrong, try tlsURL())
        #expect(error.code == .tlsFailure)
        #expect((error.underlying as? CurlError)?.code == 90)
    }

    @Test func aWrongHostNameIsATLSFailure() async throws {
        // The certificate is for 127.0.0.1 (and signed by the CA we trust); "localhost" reaches
        // the same server under a name the certificate does not carry.
        let ca = try InteropServers.value("SLUICE_NGINX_CA")
        var components = URLComponents(url: try tlsURL(), resolvingAgainstBaseURL: false)!
        components.host = "localhost"
        let error = try await failure(makeTransport { $0.tls.caFile = ca }, components.url!)
        #expect(error.code == .tlsFailure)
        #expect((error.underlying as? CurlError)?.code == 60)
        #expect(error.message.contains("localhost"), "\(error.message)")
    }

    @Test func verificationCanBeTurnedOffOnlyExplicitlyAndThatWarns() async throws {
        let warnings = Locked([String]())
        let insecure = makeTransport {
            $0.tls.verifyPeer = false
            $0.warningSink = { message in warnings.withLock { $0.append(message) } }
        }
        #expect(try await insecure.send(HTTPRequest(url: try tlsURL()), context: RequestContext()).status == .ok)
        #expect(try await insecure.send(HTTPRequest(url: try tlsURL()), context: RequestContext()).status == .ok)
        #expect(
            warnings.withLock { $0 } == [
                "TLS verification is off (tls.verifyPeer = false): certificates and host names are not checked, so anyone on the path can read and change the traffic"
            ])

        let quiet = Locked([String]())
        let secure = makeTransport { $0.warningSink = { message in quiet.withLock { $0.append(message) } } }
        _ = try? await secure.send(HTTPRequest(url: try tlsURL()), context: RequestContext())
        #expect(quiet.withLock { $0 }.isEmpty)
        #expect(CurlTransport.Configuration.default.tls.verifyPeer)
    }

    @Test func tls13MinimumIsAccepted() async throws {
        let ca = try InteropServers.value("SLUICE_NGINX_CA")
        let modern = makeTransport {
            $0.tls.caFile = ca; $0.tls.minimumVersion = .tls1_3
        }
        #expect(try await modern.send(HTTPRequest(url: try tlsURL()), context: RequestContext()).status == .ok)
    }

    @Test func h2cPriorKnowledgeSpeaksHTTP2WithoutTLS() async throws {
        let url = URL(string: try InteropServers.value("SLUICE_NGINX_H2C_URL") + "/small.json")!
        let h2c = makeTransport { $0.httpVersion = .http2PriorKnowledge }
        let responses = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<20 { group.addTask { try await h2c.send(HTTPRequest(url: url), context: RequestContext()) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(responses.count == 20)
        #expect(responses.allSatisfy { $0.status == .ok && $0.metrics?.httpVersion == "2" && $0.body.count > 1000 })
        // And one after another, which reuses (or, before libcurl 8, renews) the connection.
        for _ in 0..<3 {
            #expect(try await h2c.send(HTTPRequest(url: url), context: RequestContext()).metrics?.httpVersion == "2")
        }
    }

    @Test func aMissingCAFileIsATLSFailure() async throws {
        let broken = makeTransport { $0.tls.caFile = "/nonexistent/ca.pem" }
        let error = try await failure(broken, try tlsURL())
        #expect(error.code == .tlsFailure)
    }

    // MARK: Client certificates (seed D)

    func mtlsURL() throws -> URL { URL(string: try InteropServers.value("SLUICE_NGINX_MTLS_URL") + "/small.json")! }

    @Test func aPEMClientCertificateIsPresented() async throws {
        let ca = try InteropServers.value("SLUICE_NGINX_CA")
        let cert = try InteropServers.value("SLUICE_NGINX_CLIENT_PEM"), key = try InteropServers.value("SLUICE_NGINX_CLIENT_KEY")
        let withCertificate = makeTransport {
            $0.tls.caFile = ca
            $0.tls.clientCertificate = .init(path: cert, format: .pem, keyPath: key)
        }
        #expect(try await withCertificate.send(HTTPRequest(url: try mtlsURL()), context: RequestContext()).status == .ok)

        // Without one, nginx answers 400 ("No required SSL certificate was sent").
        let without = makeTransport { $0.tls.caFile = ca }
        #expect(try await without.send(HTTPRequest(url: try mtlsURL()), context: RequestContext()).status == .badRequest)
    }

    @Test func aP12ClientCertificateWithItsPasswordIsPresented() async throws {
        let ca = try InteropServers.value("SLUICE_NGINX_CA"), p12 = try InteropServers.value("SLUICE_NGINX_CLIENT_P12")
        let right = makeTransport {
            $0.tls.caFile = ca
            $0.tls.clientCertificate = .init(path: p12, format: .p12, password: "sluice-secret")
        }
        #expect(try await right.send(HTTPRequest(url: try mtlsURL()), context: RequestContext()).status == .ok)

        let wrong = makeTransport {
            $0.tls.caFile = ca
            $0.tls.clientCertificate = .init(path: p12, format: .p12, password: "not-the-password")
        }
        let error = try await failure(wrong, try mtlsURL())
        #expect(error.code == .tlsFailure)
        #expect((error.underlying as? CurlError)?.code == 58)
    }
}

/// Thrown after recording an issue when a call that had to fail did not.
struct UnexpectedSuccess: Error {}
