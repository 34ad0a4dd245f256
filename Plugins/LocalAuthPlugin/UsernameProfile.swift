import Foundation

/// How the local pool reads, stores and compares usernames: RFC 8265's UsernameCaseMapped
/// profile of PRECIS.
///
/// - A username is **width-mapped** (fullwidth and halfwidth forms, `ｂｅｎ`, become their
///   ordinary ones, `ben`) and put in **Unicode NFC** (`josé` typed precomposed or decomposed is
///   one name): that is the form stored and shown.
/// - Two usernames are **the same user** when those forms are equal after Unicode's
///   `toLowerCase` (RFC 8265 §3.3.2), NFC again: `JOSÉ`, `José` and `josé` are one user. (SQLite's
///   `NOCASE`, used before, folds ASCII letters only.)
/// - A **new** username may hold only letters, digits and combining marks (of any script) and
///   ASCII's printable characters (the profile's IdentifierClass). Refused, with an error naming
///   the code point: spaces; controls; format, invisible and default-ignorable code points (soft
///   hyphen, joiners, variation selectors, Hangul fillers, tag characters, the Braille blank);
///   text-direction overrides; symbols and punctuation outside ASCII; characters with a
///   compatibility form (`ﬁ`, `①`, `²`); private-use and unassigned code points.
///
/// Existing pools keep working: users made before keep their names, and two of them whose
/// names compare equal now (made when `NOCASE` told them apart) both still sign in, each by its
/// exact name.
enum UsernameProfile {
    /// The form a username is stored and shown in: width-mapped, NFC; case kept.
    static func display(_ typed: String) -> String {
        if typed.utf8.allSatisfy({ $0 < 0x80 }) { return typed }
        return widthMapped(typed).precomposedStringWithCanonicalMapping
    }

    /// The form usernames are compared in: ``display(_:)``, lowercased, NFC.
    static func key(_ typed: String) -> String {
        if typed.utf8.allSatisfy({ $0 < 0x80 }) { return typed.lowercased() }
        return display(typed).lowercased().precomposedStringWithCanonicalMapping
    }

    /// Why a new username cannot be had.
    enum Refusal: Equatable {
        /// Empty, or a space or line break in it.
        case spaces
        /// A control, format, invisible, default-ignorable or text-direction code point.
        case invisible(Unicode.Scalar)
        /// A symbol or punctuation outside ASCII, a character with a compatibility form, a
        /// private-use or unassigned code point.
        case notAllowed(Unicode.Scalar)
    }

    /// The first reason `typed` cannot be a new username, or `nil` when it can.
    static func refusal(of typed: String) -> Refusal? {
        let key = key(typed)
        guard !key.isEmpty else { return .spaces }
        for scalar in key.unicodeScalars {
            if scalar.value >= 0x21 && scalar.value <= 0x7E { continue }
            let properties = scalar.properties
            if properties.isWhitespace { return .spaces }
            if isInvisible(scalar) { return .invisible(scalar) }
            switch properties.generalCategory {
            case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .otherLetter, .modifierLetter, .nonspacingMark, .spacingMark, .decimalNumber:
                // A letter or digit with a compatibility form (`ﬁ`, `ℌ`, `ｶ` after mapping) is
                // refused: it would render like another name.
                if String(scalar).precomposedStringWithCompatibilityMapping != String(scalar) { return .notAllowed(scalar) }
            default:
                return .notAllowed(scalar)
            }
        }
        return nil
    }

    /// Controls, format characters, default-ignorable code points (which render as nothing) and
    /// the blank-looking letters and symbols that are neither (U+2800 BRAILLE PATTERN BLANK).
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isDefaultIgnorableCodePoint { return true }
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate: return true
        default: break
        }
        switch scalar.value {
        case 0x2800, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x17B4, 0x17B5, 0x180B...0x180F, 0xFFF9...0xFFFB: return true
        default: return false
        }
    }

    /// `text` with its fullwidth and halfwidth forms (U+3000, U+FF01–U+FFEE) replaced by their
    /// ordinary ones: each such code point's compatibility decomposition is its `<wide>` or
    /// `<narrow>` counterpart.
    private static func widthMapped(_ text: String) -> String {
        func isWidthForm(_ scalar: Unicode.Scalar) -> Bool { scalar.value == 0x3000 || (0xFF01...0xFFEE).contains(scalar.value) }
        guard text.unicodeScalars.contains(where: isWidthForm) else { return text }
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isWidthForm(scalar) {
                mapped.append(contentsOf: String(scalar).precomposedStringWithCompatibilityMapping.unicodeScalars)
            } else {
                mapped.append(scalar)
            }
        }
        return String(mapped)
    }
}
