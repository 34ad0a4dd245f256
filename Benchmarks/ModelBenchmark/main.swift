import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import AmplifyCodegen
import BenchmarkReport
import Foundation
import GeneratedModelsGen2

// Model benchmark (issue 32):
//   - decoding a page of 1,000 generated models (an embedded type, an enum, three temporal values,
//     a lazy reference) from a GraphQL response through the API plugin's decoder and the model
//     layer, against JSONDecoder decoding the same page into plain Codable structs (dates and the
//     enum as strings) — goal ≤ 1.25×;
//   - building a `.list` document with a 20-clause predicate (reported);
//   - evaluating that predicate against a model in process (reported);
//   - generating the Swift files of a 50-model introspection (goal < 1 s).
// Run with
//   swift run -c release ModelBenchmark            (45 alternating rounds of the decodes)
//   swift run -c release ModelBenchmark --quick    (9)

/// The same record as `Post`, as a plain struct.
struct PlainPost: Decodable {
    struct Place: Decodable {
        let lat: Double
        let lng: Double
        let name: String?
    }
    let id: String
    let title: String
    let status: String
    let rating: Int?
    let score: Double?
    let published: Bool?
    let tags: [String?]?
    let location: Place?
    let publishedOn: String?
    let postedAt: String?
    let blog: [String: String]?
    let createdAt: String?
    let updatedAt: String?
}

struct PlainPage: Decodable {
    struct Data: Decodable {
        struct Connection: Decodable {
            let items: [PlainPost]
            let nextToken: String?
        }
        let listPosts: Connection
    }
    let data: Data
}

let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 3 : 15
var report = BenchmarkReport("ModelBenchmark")
registerGeneratedModels()

let statuses = ["DRAFT", "PUBLISHED", "ARCHIVED"]
var items: [String] = []
for index in 0..<1_000 {
    items.append(
        """
        {"id":"post-\(index)","title":"Post number \(index)","status":"\(statuses[index % 3])","rating":\(index % 5),"score":\(Double(index) / 7),\
        "published":\(index % 2 == 0),"tags":["a","b\(index % 9)"],"location":{"lat":52.52,"lng":13.405,"name":"Berlin","__typename":"Location"},\
        "publishedOn":"2024-05-\(String(format: "%02d", index % 28 + 1))","postedAt":"13:45:30.250Z",\
        "blog":{"id":"blog-\(index % 10)","__typename":"Blog"},"createdAt":"2024-05-01T13:45:30.250Z","updatedAt":"2024-05-02T08:00:00.000Z",\
        "__typename":"Post"}
        """)
}
let body = Array(#"{"data":{"listPosts":{"items":[\#(items.joined(separator: ","))],"nextToken":"abc"}}}"#.utf8)

/// The best of `rounds` timings of `body`, in seconds.
func best(_ body: () throws -> Void) rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return fastest
}

var checksum = 0
// The two decodes alternate, round by round, and the ratio is the median of the rounds' ratios:
// this machine's speed drifts by half between seconds, which a best-of on each side alone
// would compare across.
var plainTimes: [Double] = []
var modelTimes: [Double] = []
for _ in 0..<(rounds * 3) {
    plainTimes.append(
        try best1 {
            let page = try JSONDecoder().decode(PlainPage.self, from: Data(body))
            checksum &+= page.data.listPosts.items.count
        })
    modelTimes.append(
        try best1 {
            let response = try GraphQLResponseDecoder.decode(body, as: List<Post>.self, decodePath: "listPosts")
            guard case .success(let list) = response, list.count == 1_000 else {
                throw DataStoreError.unknown("The page did not decode: \(response)", "")
            }
            checksum &+= list.count
        })
}
let ratios = zip(modelTimes, plainTimes).map { $0 / $1 }.sorted()
let medianRatio = ratios[ratios.count / 2]
let plain = plainTimes.min() ?? 0
let models = modelTimes.min() ?? 0

/// One timing of `body`, in seconds.
func best1(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

var clauses: [any QueryPredicate] = []
for index in 0..<20 {
    switch index % 4 {
    case 0: clauses.append(Post.keys.rating >= index % 5)
    case 1: clauses.append(Post.keys.title.beginsWith("Post"))
    case 2: clauses.append(Post.keys.status != PostStatus.archived)
    default: clauses.append(Post.keys.score < Double(index))
    }
}
let predicate = clauses.dropFirst().reduce(QueryPredicateGroup(type: .and, predicates: [clauses[0]])) { $0.and($1) }
let documents = 1_000
let building =
    best {
        for _ in 0..<documents { checksum &+= GraphQLRequest<Post>.list(Post.self, where: predicate, limit: 100).document.utf8.count }
    } / Double(documents)
let sample = Post(id: "p", title: "Post 1", status: .published, rating: 4, score: 0.5)
let evaluations = 10_000
let evaluating =
    best {
        for _ in 0..<evaluations where predicate.evaluate(target: sample) { checksum &+= 1 }
    } / Double(evaluations)

/// A model introspection of `count` models, each with scalars of every kind, an enum, a
/// `belongsTo` the previous model and a `hasMany` of the next.
func introspection(models count: Int) -> [UInt8] {
    func field(_ name: String, _ type: String, required: Bool = false, extra: String = "") -> String {
        #""\#(name)": {"name": "\#(name)", "isArray": false, "type": \#(type), "isRequired": \#(required), "attributes": []\#(extra)}"#
    }
    var models: [String] = []
    for index in 0..<count {
        var fields = [
            field("id", #""ID""#, required: true), field("title", #""String""#, required: true), field("count", #""Int""#),
            field("ratio", #""Float""#), field("done", #""Boolean""#), field("day", #""AWSDate""#), field("at", #""AWSDateTime""#),
            field("state", #"{"enum": "State"}"#),
        ]
        if index > 0 {
            fields.append(field("parentId", #""ID""#))
            fields.append(
                field(
                    "parent", #"{"model": "M\#(index - 1)"}"#,
                    extra: #", "association": {"connectionType": "BELONGS_TO", "targetNames": ["parentId"]}"#))
        }
        if index < count - 1 {
            fields.append(
                field(
                    "children", #"{"model": "M\#(index + 1)"}"#,
                    extra: #", "isArrayNullable": true, "association": {"connectionType": "HAS_MANY", "associatedWith": ["parentId"]}"#))
        }
        fields.append(field("createdAt", #""AWSDateTime""#, extra: #", "isReadOnly": true"#))
        models.append(
            #""M\#(index)": {"name": "M\#(index)", "pluralName": "M\#(index)s", "fields": {\#(fields.joined(separator: ", "))}, "#
                + #""attributes": [{"type": "model", "properties": {}}, {"type": "key", "properties": {"fields": ["id"]}}, "#
                + #"{"type": "auth", "properties": {"rules": [{"allow": "public", "provider": "apiKey", "operations": ["read"]}]}}], "#
                + #""primaryKeyInfo": {"isCustomPrimaryKey": false, "primaryKeyFieldName": "id", "sortKeyFieldNames": []}}"#)
    }
    let text =
        #"{"version": 1, "models": {\#(models.joined(separator: ", "))}, "#
        + #""enums": {"State": {"name": "State", "values": ["OPEN", "CLOSED"]}}, "nonModels": {}}"#
    return Array(text.utf8)
}
let fiftyModels = introspection(models: 50)
var fileCount = 0
let codegen = try best {
    let files = try ModelCodegen.files(from: fiftyModels)
    fileCount = files.count
    checksum &+= files.reduce(0) { $0 + $1.text.utf8.count }
}

func line(_ name: String, _ value: String, _ baseline: String, _ ratio: String) {
    print(
        "\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(value.padding(toLength: 12, withPad: " ", startingAt: 0)) baseline \(baseline.padding(toLength: 26, withPad: " ", startingAt: 0)) \(ratio)"
    )
}
print("ModelBenchmark: \(rounds * 3) alternating rounds of the decodes, best of \(rounds) for the rest (checksum \(checksum))\n")
line(
    "decode a page of 1,000 Posts (model layer)", String(format: "%.2f ms", models * 1000),
    String(format: "%.2f ms JSONDecoder, plain", plain * 1000),
    String(format: "median ratio %5.2f", medianRatio))
line("build a .list document, 20-clause predicate", String(format: "%.1f µs", building * 1e6), "-", "")
line("evaluate the 20-clause predicate on a Post", String(format: "%.2f µs", evaluating * 1e6), "-", "")
line("generate a 50-model introspection's \(fileCount) files", String(format: "%.1f ms", codegen * 1000), "goal < 1 s", "")
report.figure("decode 1,000 models", models * 1000, unit: "ms", limit: plain * 1000, limitName: "JSONDecoder plain structs", higherIsBetter: false)
report.figure("list document, 20 clauses", building * 1e6, unit: "µs", higherIsBetter: false)
report.figure("predicate evaluation, 20 clauses", evaluating * 1e6, unit: "µs", higherIsBetter: false)
report.figure("codegen of 50 models", codegen * 1000, unit: "ms", limit: 1000, limitName: "goal", higherIsBetter: false)
print("")
report.goal("decoding 1,000 models ≤ 1.25× JSONDecoder on plain structs (median of the rounds' ratios)", medianRatio <= 1.25)
report.goal("codegen of a 50-model introspection < 1 s", codegen < 1)
report.finish()
