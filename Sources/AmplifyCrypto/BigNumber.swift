import COpenSSL

/// A non-negative arbitrary-precision integer on OpenSSL's `BIGNUM`, for protocols such as SRP.
///
/// Immutable: every operation returns a new number. Not `Sendable` (it owns a C pointer); pass
/// ``bytes`` between tasks instead. Modular exponentiation with a secret exponent runs in
/// constant time (`BN_mod_exp_mont_consttime`).
public final class BigNumber: Equatable, CustomStringConvertible {
    let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { BN_clear_free(pointer) }

    /// The number whose big-endian magnitude is `bytes` (empty is zero).
    /// - Throws: ``CryptoError`` if OpenSSL cannot allocate it.
    public convenience init(bytes: [UInt8]) throws {
        guard let made = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else {
            throw CryptoError("BN_bin2bn", openSSLReason())
        }
        self.init(owning: made)
    }

    /// The number written in hexadecimal (either case, no prefix, leading zeros allowed).
    /// - Throws: ``CryptoError`` for an empty string or a non-hexadecimal character.
    public convenience init(hex: String) throws {
        guard !hex.isEmpty, hex.utf8.allSatisfy(Self.isHexDigit) else {
            throw CryptoError("reading a hexadecimal number", "'\(hex.prefix(16))…' is not hexadecimal")
        }
        var made: OpaquePointer?
        guard BN_hex2bn(&made, hex) == Int32(hex.utf8.count), let made else { throw CryptoError("BN_hex2bn", openSSLReason()) }
        self.init(owning: made)
    }

    /// The number `value`.
    /// - Throws: ``CryptoError`` if OpenSSL cannot allocate it.
    public convenience init(_ value: UInt) throws {
        guard let made = BN_new(), BN_set_word(made, numericCast(value)) == 1 else { throw CryptoError("BN_set_word", openSSLReason()) }
        self.init(owning: made)
    }

    /// The minimal big-endian magnitude (empty for zero).
    public var bytes: [UInt8] {
        let count = Int((BN_num_bits(pointer) + 7) / 8)
        var output = [UInt8](repeating: 0, count: count)
        if count > 0 { _ = BN_bn2bin(pointer, &output) }
        return output
    }

    /// The big-endian magnitude left-padded with zeros to `length` bytes.
    /// - Throws: ``CryptoError`` if the number needs more than `length` bytes.
    public func bytes(paddedTo length: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: length)
        guard BN_bn2binpad(pointer, &output, Int32(length)) == Int32(length) else {
            throw CryptoError("BN_bn2binpad", "the number needs more than \(length) bytes")
        }
        return output
    }

    /// Lower-case hexadecimal without leading zeros ("0" for zero).
    public var description: String {
        let value = bytes
        guard !value.isEmpty else { return "0" }
        let text = Digest.hex(value)
        return text.hasPrefix("0") ? String(text.dropFirst()) : text
    }

    /// The number of significant bits (0 for zero).
    public var bitCount: Int { Int(BN_num_bits(pointer)) }

    /// Whether the number is zero.
    public var isZero: Bool { BN_is_zero(pointer) == 1 }

    /// Whether both are the same number.
    public static func == (lhs: BigNumber, rhs: BigNumber) -> Bool { BN_cmp(lhs.pointer, rhs.pointer) == 0 }

    /// `self mod modulus`.
    /// - Throws: ``CryptoError`` for a zero modulus.
    public func modulo(_ modulus: BigNumber) throws -> BigNumber {
        try Self.compute("BN_nnmod") { result, context in BN_nnmod(result, pointer, modulus.pointer, context) }
    }

    /// `(self + other) mod modulus`.
    /// - Throws: ``CryptoError`` for a zero modulus.
    public func adding(_ other: BigNumber, modulo modulus: BigNumber) throws -> BigNumber {
        try Self.compute("BN_mod_add") { result, context in BN_mod_add(result, pointer, other.pointer, modulus.pointer, context) }
    }

    /// `(self - other) mod modulus`, never negative.
    /// - Throws: ``CryptoError`` for a zero modulus.
    public func subtracting(_ other: BigNumber, modulo modulus: BigNumber) throws -> BigNumber {
        try Self.compute("BN_mod_sub") { result, context in BN_mod_sub(result, pointer, other.pointer, modulus.pointer, context) }
    }

    /// `(self × other) mod modulus`.
    /// - Throws: ``CryptoError`` for a zero modulus.
    public func multiplying(_ other: BigNumber, modulo modulus: BigNumber) throws -> BigNumber {
        try Self.compute("BN_mod_mul") { result, context in BN_mod_mul(result, pointer, other.pointer, modulus.pointer, context) }
    }

    /// `self + other` (no modulus).
    /// - Throws: ``CryptoError`` if OpenSSL cannot allocate the result.
    public func adding(_ other: BigNumber) throws -> BigNumber {
        try Self.compute("BN_add") { result, _ in BN_add(result, pointer, other.pointer) }
    }

    /// `self × other` (no modulus).
    /// - Throws: ``CryptoError`` if OpenSSL cannot allocate the result.
    public func multiplying(_ other: BigNumber) throws -> BigNumber {
        try Self.compute("BN_mul") { result, context in BN_mul(result, pointer, other.pointer, context) }
    }

    /// `self ^ exponent mod modulus`, in constant time (the exponent may be secret).
    /// - Throws: ``CryptoError`` for an even or zero modulus (Montgomery form needs an odd one).
    public func power(_ exponent: BigNumber, modulo modulus: BigNumber) throws -> BigNumber {
        guard BN_is_odd(modulus.pointer) == 1 else { throw CryptoError("BN_mod_exp_mont_consttime", "the modulus must be odd") }
        return try Self.compute("BN_mod_exp_mont_consttime") { result, context in
            BN_mod_exp_mont_consttime(result, pointer, exponent.pointer, modulus.pointer, context, nil)
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func compute(_ operation: String, _ body: (OpaquePointer, OpaquePointer) -> Int32) throws -> BigNumber {
        guard let result = BN_new() else { throw CryptoError(operation, openSSLReason()) }
        guard let context = BN_CTX_new() else {
            BN_free(result)
            throw CryptoError(operation, openSSLReason())
        }
        defer { BN_CTX_free(context) }
        guard body(result, context) == 1 else {
            BN_free(result)
            throw CryptoError(operation, openSSLReason())
        }
        return BigNumber(owning: result)
    }
}
