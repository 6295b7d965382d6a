import Foundation
import Sluice

/// RFC 8188's record layer, both ways, chunk by chunk: what ``AES128GCMContentCoding`` runs over
/// a body in memory, a file or a stream without holding it whole.
///
/// A message is a header (16-byte salt, 4-byte record size, key-id length and key id), then
/// records of `recordSize` bytes (the last may be shorter), each the AES-128-GCM sealing of up
/// to `recordSize − 17` bytes of content, a delimiter (1, or 2 in the last record) and no
/// padding. The content key and nonce come from HKDF-SHA-256 over the secret and the salt.
package enum AES128GCMRecords {
    /// The smallest record size: a 16-byte tag, the delimiter and one byte of content.
    static let minimumRecordSize = 18
    static let saltLength = 16
    static let overhead = Crypto.tagLength + 1

    /// The content-encryption key and the base nonce for `secret` and `salt` (RFC 8188 §2.2-2.3).
    static func keyAndNonce(secret: Data, salt: Data) throws(SluiceError) -> (key: Data, nonce: [UInt8]) {
        let key = try Crypto.hkdf(ikm: secret, salt: salt, info: Data("Content-Encoding: aes128gcm\0".utf8), length: 16)
        let nonce = try Crypto.hkdf(ikm: secret, salt: salt, info: Data("Content-Encoding: nonce\0".utf8), length: 12)
        return (key, [UInt8](nonce))
    }

    /// The nonce of record `sequence`: the base nonce XOR the sequence number (big-endian).
    static func nonce(_ base: [UInt8], _ sequence: UInt64) -> [UInt8] {
        var nonce = base
        for index in 0..<8 { nonce[11 - index] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(index))) }
        return nonce
    }

    /// The encrypted length of `plaintext` bytes: the header, plus 17 bytes per record; `nil`
    /// (unknown, sent chunked) when it does not fit in 63 bits, as a caller's claimed length may not.
    static func encryptedLength(plaintext: Int64, recordSize: Int, keyID: Data) -> Int64? {
        let perRecord = Int64(recordSize - overhead)
        guard plaintext >= 0, perRecord > 0 else { return nil }
        let records = max(1, plaintext / perRecord + (plaintext % perRecord == 0 ? 0 : 1))
        let (tags, tagsOverflow) = records.multipliedReportingOverflow(by: Int64(overhead))
        let (body, bodyOverflow) = plaintext.addingReportingOverflow(tags)
        let (total, totalOverflow) = body.addingReportingOverflow(Int64(saltLength + 5 + keyID.count))
        return tagsOverflow || bodyOverflow || totalOverflow ? nil : total
    }

    /// - Throws: `.misconfigured` for a record size or key id RFC 8188 does not allow.
    static func check(recordSize: Int, keyID: Data) throws(SluiceError) {
        // RFC 8188 §2.1: the header's rs is 32 bits; a record larger than libcrypto takes in one
        // call is sealed in pieces (`Crypto.GCM.seal`).
        guard recordSize >= minimumRecordSize, recordSize <= Int(UInt32.max) else {
            throw SluiceError(.misconfigured, "an aes128gcm record size is 18 to 2^32 − 1 bytes (RFC 8188 §2.1), not \(recordSize)")
        }
        guard keyID.count <= 255 else { throw SluiceError(.misconfigured, "an aes128gcm key id has at most 255 bytes, not \(keyID.count)") }
    }

    /// Encrypts content as it comes: ``add(_:)`` returns the records that are complete,
    /// ``finish()`` the last one.
    package final class Encoder {
        private let gcm: Crypto.GCM
        private let baseNonce: [UInt8]
        private let recordSize: Int
        private var pending = Data()
        private var sequence: UInt64 = 0
        private var header: Data?
        /// Zero bytes of padding after the delimiter of record n (none by default; the tests
        /// use it to rebuild RFC 8188's padded example byte for byte).
        private let padding: (UInt64) -> Int

        /// An encoder for one message under `secret`, with `keyID` in its header.
        package init(secret: Data, keyID: Data, recordSize: Int, salt: Data, padding: @escaping (UInt64) -> Int = { _ in 0 }) throws(SluiceError) {
            try check(recordSize: recordSize, keyID: keyID)
            guard salt.count == saltLength else { throw SluiceError(.misconfigured, "an aes128gcm salt has 16 bytes, not \(salt.count)") }
            let (key, nonce) = try keyAndNonce(secret: secret, salt: salt)
            gcm = try Crypto.GCM(key: key, encrypting: true)
            baseNonce = nonce
            self.recordSize = recordSize
            self.padding = padding
            var header = salt
            header.append(contentsOf: withUnsafeBytes(of: UInt32(recordSize).bigEndian) { Array($0) })
            header.append(UInt8(keyID.count))
            header.append(keyID)
            self.header = header
        }

        /// The records `content` completes (the header first, the first time).
        package func add(_ content: Data) throws(SluiceError) -> Data {
            pending.append(content)
            var output = header ?? Data()
            header = nil
            // A full record is sealed only once a byte after it shows it is not the last.
            var offset = pending.startIndex
            while pending.endIndex - offset > contentRoom {
                let room = contentRoom
                try seal(pending[offset..<(offset + room)], delimiter: 1, into: &output)
                offset += room
            }
            if offset != pending.startIndex { pending = Data(pending[offset...]) }
            return output
        }

        /// The content the next record carries when full: the record less its tag, delimiter and
        /// padding (at least one byte of content).
        private var contentRoom: Int { recordSize - overhead - min(padding(sequence), recordSize - overhead - 1) }

        /// The last record (and the header, for an empty message).
        package func finish() throws(SluiceError) -> Data {
            var output = header ?? Data()
            header = nil
            try seal(pending, delimiter: 2, into: &output)
            pending = Data()
            return output
        }

        private func seal(_ content: Data, delimiter: UInt8, into output: inout Data) throws(SluiceError) {
            var record = Data(content)
            record.append(delimiter)
            let pad = min(padding(sequence), recordSize - overhead - content.count)
            if pad > 0 { record.append(Data(count: pad)) }
            let nonce = AES128GCMRecords.nonce(baseNonce, sequence)
            sequence += 1
            let gcm = self.gcm
            let failure = record.withUnsafeBytes { bytes -> SluiceError? in
                do throws(SluiceError) {
                    try gcm.seal(bytes, nonce: nonce, into: &output)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
        }
    }

    /// Decrypts a message as it arrives: ``add(_:)`` returns the content of the records that
    /// are complete and known not to be the last, ``finish()`` the last one's, after checking
    /// that the message really ends there.
    package final class Decoder {
        private let keys: any KeyProvider
        private var buffer = Data()
        private var gcm: Crypto.GCM?
        private var baseNonce: [UInt8] = []
        private var recordSize = 0
        private var sequence: UInt64 = 0
        private var sawLast = false
        private var received: Int64 = 0
        /// The largest record held whole to be opened (what OpenSSL's `int` lengths can take).
        private let maxRecordSize: Int
        /// Whether a header and no record is an empty body rather than an error.
        private let acceptsHeaderOnly: Bool

        package init(keys: any KeyProvider, maxRecordSize: Int = 16 << 20, acceptsHeaderOnly: Bool = false) {
            self.keys = keys
            self.acceptsHeaderOnly = acceptsHeaderOnly
            self.maxRecordSize = Swift.min(Swift.max(maxRecordSize, minimumRecordSize), Int(Int32.max))
        }

        package func add(_ bytes: Data) throws(SluiceError) -> Data {
            received += Int64(bytes.count)
            buffer.append(bytes)
            if gcm == nil { try readHeader() }
            guard gcm != nil else { return Data() }
            // Whole records are opened below, so what waits is part of one record: past the
            // limit, that record is too large to hold.
            if buffer.count > maxRecordSize, recordSize > maxRecordSize {
                throw Self.invalid(
                    "its record size is \(recordSize) bytes, and \(buffer.count) bytes of one record wait: more than the limit of \(maxRecordSize) "
                        + "(AES128GCMContentCoding.Configuration.maxRecordSize)")
            }
            var output = Data()
            var offset = buffer.startIndex
            while buffer.endIndex - offset > recordSize {
                try open(buffer[offset..<(offset + recordSize)], last: false, into: &output)
                offset += recordSize
            }
            if offset != buffer.startIndex { buffer = Data(buffer[offset...]) }
            return output
        }

        package func finish() throws(SluiceError) -> Data {
            if gcm == nil { try readHeader() }
            guard gcm != nil else {
                throw Self.invalid("the body ends after \(received) bytes, inside its header")
            }
            // A header and no record: every message ends with a record marked last (RFC 8188 §2),
            // so its records were removed on the way, unless the peer writes an empty body so
            // (http-ece does) and the configuration says to accept that.
            // (After a record, the last one always waits in the buffer: `add` opens a record only
            // once more bytes follow it.)
            guard !buffer.isEmpty else {
                if acceptsHeaderOnly { return Data() }
                throw Self.invalid(
                    "the body ends after its header, with no record: every message ends with a record marked last, so its records "
                        + "were removed on the way or its writer leaves them out of an empty body; refused "
                        + "(AES128GCMContentCoding.Configuration.acceptsHeaderOnlyMessages accepts it as empty)")
            }
            var output = Data()
            try open(buffer, last: true, into: &output)
            buffer = Data()
            return output
        }

        private func readHeader() throws(SluiceError) {
            guard buffer.count >= saltLength + 5 else { return }
            let bytes = [UInt8](buffer.prefix(saltLength + 5))
            let size = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let idLength = Int(bytes[20])
            guard buffer.count >= saltLength + 5 + idLength else { return }
            guard size >= minimumRecordSize else {
                throw Self.invalid("its record size is \(size), below the minimum of \(minimumRecordSize)")
            }
            let idBytes = buffer.dropFirst(saltLength + 5).prefix(idLength)
            let id = String(decoding: idBytes, as: UTF8.self)
            guard let secret = keys.key(id: id) else {
                throw Self.invalid("no key is known for its key id \(String(reflecting: id.escapingControlCharacters()))")
            }
            let (key, nonce) = try keyAndNonce(secret: secret, salt: Data(buffer.prefix(saltLength)))
            gcm = try Crypto.GCM(key: key, encrypting: false)
            baseNonce = nonce
            recordSize = size
            buffer.removeFirst(saltLength + 5 + idLength)
        }

        private func open(_ record: Data, last: Bool, into output: inout Data) throws(SluiceError) {
            let number = sequence + 1
            guard !sawLast else { throw Self.invalid("record \(number) follows the record marked last") }
            guard record.count > Crypto.tagLength else {
                throw Self.invalid("record \(number) has \(record.count) bytes, too few for its tag and delimiter")
            }
            let nonce = AES128GCMRecords.nonce(baseNonce, sequence)
            sequence += 1
            guard let gcm, let plain = record.withUnsafeBytes({ gcm.open($0, nonce: nonce) }) else {
                throw Self.invalid("record \(number) does not authenticate: the key is wrong, or the bytes were changed or cut short")
            }
            // Content, the delimiter, then zero padding.
            guard let end = plain.lastIndex(where: { $0 != 0 }) else { throw Self.invalid("record \(number) has no delimiter") }
            switch plain[end] {
            case 1 where !last: break
            case 2 where last: sawLast = true
            case 1: throw Self.invalid("the body ends after record \(number), which is not marked last (it was cut short)")
            case 2: throw Self.invalid("record \(number) is marked last, but more records follow")
            default: throw Self.invalid("record \(number) has the delimiter \(plain[end]), not 1 or 2")
            }
            output.append(plain[plain.startIndex..<end])
        }

        static func invalid(_ reason: String) -> SluiceError {
            SluiceError(.invalidResponse, "aes128gcm body: \(reason)")
        }
    }
}
