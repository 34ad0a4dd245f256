/// A value stored in, or bound to, an SQLite statement.
public enum SQLiteValue: Sendable, Equatable, Hashable {
    /// NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The text, if this is text.
    public var text: String? { if case .text(let value) = self { value } else { nil } }
    /// The integer, if this is an integer.
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The number, if this is an integer or a real.
    public var real: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }
    /// The bytes, if this is a blob.
    public var blob: [UInt8]? { if case .blob(let value) = self { value } else { nil } }
    /// Whether this is NULL.
    public var isNull: Bool { self == .null }
}

extension SQLiteValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral {
    /// `'text'`
    public init(stringLiteral value: String) { self = .text(value) }
    /// `42`
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `NULL`
    public init(nilLiteral: ()) { self = .null }
    /// `1.5`
    public init(floatLiteral value: Double) { self = .real(value) }
}

/// One result row, by column name.
public struct SQLiteRow: Sendable, Equatable {
    /// The row's values by column name.
    public let values: [String: SQLiteValue]

    /// The value of `column`, or `.null` if there is no such column.
    public subscript(column: String) -> SQLiteValue { values[column] ?? .null }
}

/// An SQLite failure: its result code, SQLite's message and the statement.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's (extended) result code, e.g. 19 for a constraint violation.
    public let code: Int32
    /// SQLite's message.
    public let message: String
    /// The statement, or the file for open errors.
    public let context: String

    /// Whether a UNIQUE, PRIMARY KEY or other constraint rejected the change.
    public var isConstraintViolation: Bool { code & 0xFF == 19 }

    /// "SQLite error 19 (UNIQUE constraint failed: users.username) in: INSERT ..."
    public var description: String { "SQLite error \(code) (\(message)) in: \(context)" }
}
