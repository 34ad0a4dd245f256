import Amplify
import AmplifyStorageCore
import Testing

/// Gen 2 path access rules, as amplify-backend defines them.
@Suite("Storage access rules")
struct StorageAccessRulesTests {
    let rules = StorageAccessRules(paths: [
        "media/*": ["authenticated": ["read"], "guest": ["get"]],
        "media/albums/*": ["groupEDITORS": ["read", "write"]],
        "users/{entity_id}/*": ["entityidentity": ["get", "write", "delete"]],
        "ops/*": ["groupsSALES": ["list"], "resource": ["write"]],
    ])
    let alice = StorageAccessRules.Caller(isAuthenticated: true, groups: ["EDITORS"], identityId: "us-east-1:alice")

    @Test("a path falls under the longest pattern it starts with: a nested pattern replaces its parent's rules")
    func longestPatternWins() throws {
        #expect(rules.rule(for: "media/albums/1.jpg")?.rule.pattern == "media/albums/*")
        #expect(rules.rule(for: "media/x.jpg")?.rule.pattern == "media/*")
        try rules.check(.get, path: "media/x.jpg", caller: .guest, bucket: "b")
        #expect(throws: StorageError.self) { try rules.check(.get, path: "media/albums/1.jpg", caller: .guest, bucket: "b") }
        try rules.check(.write, path: "media/albums/1.jpg", caller: alice, bucket: "b")
    }

    @Test("read grants get and list; {entity_id} matches one segment and grants only its owner")
    func readAndEntity() throws {
        try rules.check(.list, path: "media/", caller: alice, bucket: "b")
        #expect(rules.rule(for: "users/us-east-1:alice/a.txt")?.entity == "us-east-1:alice")
        try rules.check(.write, path: "users/us-east-1:alice/a.txt", caller: alice, bucket: "b")
        #expect(throws: StorageError.self) { try rules.check(.write, path: "users/us-east-1:bob/a.txt", caller: alice, bucket: "b") }
        #expect(throws: StorageError.self) { try rules.check(.list, path: "users/us-east-1:alice/", caller: alice, bucket: "b") }
    }

    @Test("groups<Name> and group<Name> both name a group (one starting with s too); resource never grants a client")
    func groupsAndResource() throws {
        let sales = StorageAccessRules.Caller(isAuthenticated: true, groups: ["SALES"])
        try rules.check(.list, path: "ops/", caller: sales, bucket: "b")
        let ales = StorageAccessRules.Caller(isAuthenticated: true, groups: ["sSALES"])
        try rules.check(.list, path: "ops/", caller: ales, bucket: "b")
        #expect(throws: StorageError.self) { try rules.check(.write, path: "ops/x", caller: sales, bucket: "b") }
    }

    @Test("a refusal names the rule, who it allows, and who called")
    func messages() {
        do {
            try rules.check(.delete, path: "media/x.jpg", caller: alice, bucket: "photos")
            Issue.record("delete was allowed")
        } catch StorageError.accessDenied(let description, let suggestion, _) {
            #expect(
                description
                    == "The access rule `media/*` of bucket 'photos' lets nobody delete 'media/x.jpg'; the caller is signed in, in group EDITORS.")
            #expect(suggestion == "Grant delete on `media/*` in defineStorage's `access`.")
        } catch {
            Issue.record("\(error)")
        }
    }
}
