import Foundation
import Sluice

/// Encrypts request bodies and decrypts response bodies end to end, on top of TLS, for APIs
/// whose gateways require it: with RFC 8188's ``AES128GCMContentCoding``, JOSE's
/// ``JWECompactCipher``, or an in-house ``PayloadCipher``.
///
/// It sits between gzip and signing (`MiddlewarePosition.encryption`): a body is
/// compressed, then encrypted, then signed as it really goes out; an answer is decrypted before
/// gzip decodes it. Per request, `request.encryptsBody` and `request.decryptsResponse` override
/// the configuration, so one client talks to encrypted and plain endpoints alike. A decrypted
/// answer carries `Cache-Control: no-store` unless the configuration lets caches keep it: a cache
/// file must not hold in the clear what the server encrypted.
///
/// ```swift
/// import Sluice
/// import SluiceEncryption
///
/// let keys = StaticKeyProvider(keys: ["k1": sharedSecret], current: "k1")
/// builder.add(PayloadEncryptionMiddleware(cipher: AES128GCMContentCoding(keys: keys)))
/// ```
public struct PayloadEncryptionMiddleware: Middleware, BodySealer {
    /// What is encrypted and decrypted by default, and whether caches may keep plaintext.
    public struct Configuration: Sendable {
        /// Encrypt request bodies (unless a request says `encryptsBody = .never`).
        public var encryptsRequests: Bool
        /// Decrypt answers in the cipher's format (unless a request says `decryptsResponse = .never`).
        public var decryptsResponses: Bool
        /// Let a cache store the decrypted answer.
        public var cachesDecryptedResponses: Bool
        /// Refuse a success (2xx) answer with a body that is not in the cipher's format when the
        /// request's body went out encrypted: `.invalidResponse`, with the answer attached. On by
        /// default: a server that can read the request holds the key, so a plain answer means
        /// something on the way stripped the encryption or the server ignored it, and RFC 8188
        /// §4 asks recipients that rely on the coding for origin authentication to refuse it.
        /// Error answers (4xx, 5xx) pass as they are: gateways and proxies that hold no key send
        /// them, and the stages above need their status (a 401 still refreshes a token).
        public var requiresEncryptedResponses: Bool

        /// Settings with each value given, or its default.
        public init(
            encryptsRequests: Bool = true, decryptsResponses: Bool = true, cachesDecryptedResponses: Bool = false,
            requiresEncryptedResponses: Bool = true
        ) {
            self.encryptsRequests = encryptsRequests
            self.decryptsResponses = decryptsResponses
            self.cachesDecryptedResponses = cachesDecryptedResponses
            self.requiresEncryptedResponses = requiresEncryptedResponses
        }

        /// Encrypt every body, decrypt every encrypted answer, refuse a plain success answer to an
        /// encrypted request, never cache plaintext.
        public static let `default` = Configuration()
    }

    public static let defaultPosition = MiddlewarePosition.encryption
    public static let readsOptions: [any RequestOptionKey.Type] = [EncryptsBodyKey.self, DecryptsResponseKey.self]

    /// The cipher.
    public let cipher: any PayloadCipher
    /// How it behaves.
    public let configuration: Configuration

    /// A middleware encrypting with `cipher`.
    public init(cipher: any PayloadCipher, configuration: Configuration = .default) {
        self.cipher = cipher
        self.configuration = configuration
    }

    public func intercept(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var request = request
        var encrypted = false
        if encrypts(request) {
            // A body sealed ahead of time (a write the outbox kept) goes out as it is.
            if !cipher.isSealed(request) { request = try await cipher.encrypt(request) }
            encrypted = true
        }
        var response = try await next(request, context)
        // A message that has no body (an answer to HEAD, a 1xx, 204 or 304) has nothing to decrypt,
        // whatever Content-Encoding its fields describe (RFC 9110 §6.4.1): it passes as it is.
        if request.method == .head || response.status.code < 200 || response.status.code == 204 || response.status.code == 304 {
            return response
        }
        let decrypts = request.decryptsResponse.applies(configured: configuration.decryptsResponses)
        if decrypts {
            do {
                try cipher.checkCodingOrder(of: response)
            } catch let error as SluiceError {
                throw SluiceError(error.code, "\(request): \(error.message)", response: response)
            }
        }
        guard decrypts, cipher.isEncrypted(response) else {
            if encrypted, configuration.requiresEncryptedResponses, request.decryptsResponse != .never, response.status.isSuccess,
                Self.hasBody(response)
            {
                throw SluiceError(
                    .invalidResponse,
                    "\(request) went out encrypted, but its answer (\(response.status)) is not in the cipher's format: "
                        + "refused (requiresEncryptedResponses)", response: response)
            }
            // A plain answer is not confidential, whatever the request was: its flag says what
            // this body is (the request's plaintext is kept out of recorders by its own flag).
            if encrypted { response.requestBodyWasConfidential = true }
            return response
        }
        do {
            response = try await cipher.decrypt(response)
        } catch let error as SluiceError {
            throw SluiceError(error.code, "\(request): \(error.message)", response: response)
        }
        if let stream = response.bodyStream {
            // A streamed body is decrypted as it is read: its errors name the request as a
            // buffered body's do (and the link names this stage), with the answer's head attached.
            let what = "\(request)"
            var head = response
            head.bodyStream = nil
            response.bodyStream = stream.renamingErrors { [head] error in
                SluiceError(error.code, "\(what): \(error.message)", underlying: error.underlying, response: head)
            }
        }
        if !configuration.cachesDecryptedResponses { try response.headers.append(name: "Cache-Control", value: "no-store") }
        response.bodiesAreConfidential = true
        return response
    }

    /// `request` with its body sealed as it will go out, for a stage above that keeps it (the
    /// outbox): what it keeps is the ciphertext, never the plaintext, and it goes out as it is
    /// when it is sent (``PayloadCipher/isSealed(_:)``). `nil` when the body goes out as it is.
    ///
    /// - Throws: `.misconfigured` when the cipher cannot tell a sealed body (its writes cannot be
    ///   kept without being sealed twice); the cipher's own errors.
    package func sealedForKeeping(_ request: HTTPRequest) async throws -> HTTPRequest? {
        guard encrypts(request), !cipher.isSealed(request) else { return nil }
        let sealed = try await cipher.encrypt(request)
        guard cipher.isSealed(sealed) else {
            throw SluiceError(
                .misconfigured,
                "\(request) cannot be kept to send later: its body is encrypted end to end by \(type(of: cipher)), which cannot tell a "
                    + "body it already sealed (PayloadCipher.isSealed), so keeping the plaintext or sealing it twice are the choices; refused")
        }
        return sealed
    }

    /// Whether `request`'s body is to go out encrypted: its own say first, then the configuration.
    func encrypts(_ request: HTTPRequest) -> Bool {
        request.encryptsBody.applies(configured: configuration.encryptsRequests) && request.body.length != 0
    }

    /// Whether the answer carries a body: bytes, a file or a stream that is not known to be empty.
    static func hasBody(_ response: HTTPResponse) -> Bool {
        if !response.body.isEmpty || response.bodyFile != nil { return true }
        if response.bodyStream != nil { return response.headers["Content-Length"] != "0" }
        return false
    }
}
