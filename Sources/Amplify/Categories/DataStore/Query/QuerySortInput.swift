/// Which way to sort by one field.
public enum QuerySortBy {
    /// Smallest first.
    case ascending(any CodingKey)
    /// Largest first.
    case descending(any CodingKey)
}

/// The sort of a query: fields in order of precedence.
public struct QuerySortInput {
    /// The fields.
    public let inputs: [QuerySortBy]

    /// A sort by `inputs`.
    public init(_ inputs: [QuerySortBy]) {
        self.inputs = inputs
    }

    /// A sort by `inputs`.
    public static func by(_ inputs: QuerySortBy...) -> QuerySortInput { QuerySortInput(inputs) }
    /// Ascending by `field`.
    public static func ascending(_ field: any CodingKey) -> QuerySortInput { QuerySortInput([.ascending(field)]) }
    /// Descending by `field`.
    public static func descending(_ field: any CodingKey) -> QuerySortInput { QuerySortInput([.descending(field)]) }
}

/// A page of a query: its number and size.
public struct QueryPaginationInput: Sendable {
    /// The size of a page unless said: 100.
    public static let defaultLimit: UInt = 100
    /// The page, from 0.
    public let page: UInt
    /// The page's size.
    public let limit: UInt

    /// Page `page` of `limit`.
    public static func page(_ page: UInt, limit: UInt = QueryPaginationInput.defaultLimit) -> QueryPaginationInput {
        QueryPaginationInput(page: page, limit: limit)
    }

    /// The first result alone.
    public static var firstResult: QueryPaginationInput { .page(0, limit: 1) }
    /// The first page.
    public static var firstPage: QueryPaginationInput { .page(0) }
}
