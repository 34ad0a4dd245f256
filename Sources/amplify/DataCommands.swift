import AWSAPIPlugin
import AWSPluginsCore
import Amplify
import ArgumentParser
import Foundation

struct DataGroup: CommandGroup {
    static let configuration = CommandConfiguration(
        commandName: "data", abstract: "Read and write models, driven by the introspection.",
        subcommands: [
            DataCommands.List.self, DataCommands.Get.self, DataCommands.Create.self, DataCommands.Update.self, DataCommands.Delete.self,
            DataCommands.Subscribe.self,
        ])
}

/// `amplify data`: a generic client of the models in `data.model_introspection`, with no codegen:
/// the documents the model layer builds, JSON in and out.
enum DataCommands {
    /// What every data command is given: the model, the API and its auth mode.
    struct Model: ParsableArguments {
        @Argument(help: ArgumentHelp("The model's name (Post).", valueName: "model")) var name: String
        @Option(help: ArgumentHelp("The API's name in the configuration (default: the only GraphQL API).", valueName: "name")) var api: String?
        @Option(name: .customLong("auth-mode"), help: ArgumentHelp("The auth mode (default: the API's).", valueName: "mode")) var authMode: String?

        /// The configured plugin's schema of the model, and a builder of its documents.
        func prepare(_ global: GlobalOptions, _ operation: GraphQLOperationType) throws -> (ModelSchema, ModelBasedGraphQLDocumentBuilder) {
            let data = try DataSchema(global)
            let schema = data.schema(try data.model(name))
            try APICommands.configure(global)
            return (schema, ModelBasedGraphQLDocumentBuilder(modelSchema: schema, operationType: operation))
        }

        func request(_ document: any SingleDirectiveGraphQLDocument) throws -> GraphQLRequest<JSONValue> {
            GraphQLRequest(
                apiName: api, document: document.stringValue, variables: document.variables, responseType: JSONValue.self,
                decodePath: document.name, authMode: try APICommands.mode(authMode))
        }
    }

    /// The model's key fields given in order on the command line.
    static func keyFields(_ values: [String], of schema: ModelSchema) throws -> [(name: String, value: any Persistable)] {
        let names = schema.primaryKey.fields.map(\.name)
        guard values.count == names.count else {
            throw UsageError("\(schema.name)'s key is \(names.joined(separator: ", ")): give \(names.count) value(s), got \(values.count).")
        }
        return zip(names, values).map { ($0, $1) }
    }

    /// A JSON object from the argument (or @FILE).
    static func object(_ text: String) throws -> [String: JSONValue] {
        let json = try APICommands.text(text, what: "the input")
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)), let object = value.asObject else {
            throw UsageError("The input needs a JSON object (or @FILE holding one).")
        }
        return object
    }

    struct List: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Print a model's records as JSON lines.",
            discussion: """
                Prints one JSON object per record. --where filters on the server (`status == PUBLISHED and rating >= 4`; \
                operators ==, !=, <, <=, >, >=, contains, notContains, beginsWith, between A B, exists, missing; and, or, \
                not, parentheses). Without --all, a page is printed and, when there is more, its nextToken on stderr.
                """)
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var model: Model
        @Option(name: .customLong("where"), help: ArgumentHelp("A filter (see above).", valueName: "predicate")) var predicate: String?
        @Option(help: ArgumentHelp("Records a page (default 100).", valueName: "number")) var limit = 100
        @Option(name: .customLong("next-token"), help: ArgumentHelp("Start from this page token.", valueName: "token")) var nextToken: String?
        @Flag(help: "Follow every page.") var all = false

        func validate() throws {
            if limit <= 0 { throw ValidationError("--limit needs a positive whole number; got '\(limit)'.") }
        }

        func execute() async throws -> CommandResult {
            let (schema, base) = try model.prepare(global, .query)
            let filter = try predicate.map { try DataPredicate.parse($0, schema: schema).graphQLFilter(for: schema) }
            var token = nextToken
            repeat {
                var builder = base
                builder.add(decorator: DirectiveNameDecorator(type: .list))
                if let filter { builder.add(decorator: FilterDecorator(filter: filter)) }
                builder.add(decorator: PaginationDecorator(limit: limit, nextToken: token))
                let response = try await Amplify.API.query(request: try model.request(builder.build()))
                guard case .success(let page) = response else { return try APICommands.result(response, json: global.json) }
                for item in page["items"]?.asArray ?? [] { Output.line(item.compactText) }
                token = page["nextToken"]?.stringValue
            } while all && token != nil
            if let token { FileHandle.standardError.write(Data("more: --next-token \(token)\n".utf8)) }
            return CommandResult(text: "", json: .null)
        }
    }

    struct Get: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Print one record by its key (null when there is none).")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var model: Model
        @Argument(help: ArgumentHelp("The key's values, in the key's order.", valueName: "key")) var key: [String]

        func execute() async throws -> CommandResult {
            var (schema, builder) = try model.prepare(global, .query)
            builder.add(decorator: DirectiveNameDecorator(type: .get))
            builder.add(decorator: ModelIdDecorator(identifierFields: try DataCommands.keyFields(key, of: schema)))
            return try APICommands.result(try await Amplify.API.query(request: try model.request(builder.build())), json: global.json)
        }
    }

    /// A create or update: the input object as given, a condition from --where.
    static func mutate(
        _ model: Model, _ global: GlobalOptions, _ type: GraphQLMutationType, input: [String: JSONValue], predicate: String?
    ) async throws -> CommandResult {
        var (schema, builder) = try model.prepare(global, .mutation)
        builder.add(decorator: DirectiveNameDecorator(type: type))
        if let predicate {
            builder.add(decorator: FilterDecorator(filter: try DataPredicate.parse(predicate, schema: schema).graphQLFilter(for: schema)))
        }
        var document = builder.build()
        document.inputs["input"] = GraphQLDocumentInput(
            type: "\(document.name.prefix(1).uppercased() + document.name.dropFirst())Input!", value: .object(input))
        return try APICommands.result(try await Amplify.API.mutate(request: try model.request(document)), json: global.json)
    }

    struct Create: AmplifyCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a record from a JSON object.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var model: Model
        @Argument(help: ArgumentHelp("The record: a JSON object, or @FILE.", valueName: "json")) var input: String

        func execute() async throws -> CommandResult {
            try await DataCommands.mutate(model, global, .create, input: try DataCommands.object(input), predicate: nil)
        }
    }

    struct Update: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "update", abstract: "Update a record: its key and the fields to change, as a JSON object.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var model: Model
        @Argument(help: ArgumentHelp("The key and the changed fields: a JSON object, or @FILE.", valueName: "json")) var input: String
        @Option(name: .customLong("where"), help: ArgumentHelp("A condition the stored record must meet.", valueName: "predicate"))
        var predicate: String?

        func execute() async throws -> CommandResult {
            try await DataCommands.mutate(model, global, .update, input: try DataCommands.object(input), predicate: predicate)
        }
    }

    struct Delete: AmplifyCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a record by its key.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var model: Model
        @Argument(help: ArgumentHelp("The key's values, in the key's order.", valueName: "key")) var key: [String]
        @Option(name: .customLong("where"), help: ArgumentHelp("A condition the stored record must meet.", valueName: "predicate"))
        var predicate: String?

        func execute() async throws -> CommandResult {
            let schema = try DataSchema(global).schema(try DataSchema(global).model(model.name))
            var input: [String: JSONValue] = [:]
            for (name, value) in try DataCommands.keyFields(key, of: schema) { input[name] = .string("\(value)") }
            return try await DataCommands.mutate(model, global, .delete, input: input, predicate: predicate)
        }
    }

    struct Subscribe: AmplifyCommand {
        static let configuration = CommandConfiguration(
            commandName: "subscribe", abstract: "Print a model's creates, updates or deletes as JSON lines.")
        static var needsConfiguration: Bool { false }
        @OptionGroup var global: GlobalOptions
        @OptionGroup var model: Model
        @Option(help: ArgumentHelp("create, update or delete (default create).", valueName: "event")) var on = "create"
        @OptionGroup var limits: StreamLimits

        func validate() throws {
            guard ["create", "update", "delete"].contains(on) else { throw ValidationError("--on takes create, update or delete; got '\(on)'.") }
        }

        func execute() async throws -> CommandResult {
            var (_, builder) = try model.prepare(global, .subscription)
            let type: GraphQLSubscriptionType = on == "create" ? .onCreate : on == "update" ? .onUpdate : .onDelete
            builder.add(decorator: DirectiveNameDecorator(type: type))
            let sequence = Amplify.API.subscribe(request: try model.request(builder.build()))
            let stop = StopSignals(timeout: limits.timeout) { sequence.cancel() }
            defer { stop.restore() }
            var received = 0
            for try await event in sequence {
                switch event {
                case .connection(let state):
                    Output.line((["connection": .string(state.rawValue)] as JSONValue).compactText)
                case .data(.success(let record)):
                    Output.line(record.compactText)
                    received += 1
                case .data(.failure(let error)):
                    Output.line((["error": .string(error.errorDescription)] as JSONValue).compactText)
                    received += 1
                }
                if let count = limits.count, received >= count { sequence.cancel() }
            }
            return CommandResult(text: "", json: .null)
        }
    }
}
