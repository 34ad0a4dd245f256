import AmplifyConcurrency
import Testing

@Suite("Locked")
struct LockedTests {
    struct Refused: Error, Equatable {}

    @Test("increments from many tasks at once are none of them lost")
    func incrementsFromManyTasks() async {
        let total = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<10_000 { total.withLock { $0 += 1 } } }
            }
        }
        #expect(total.value == 80_000)
    }

    @Test("withLock returns what its body returns, and a body that throws leaves the lock free and its changes made")
    func throwingBodyReleasesTheLock() {
        let list = Locked([1])
        #expect(list.withLock { $0.count } == 1)
        #expect(throws: Refused.self) {
            try list.withLock { (value: inout [Int]) throws(Refused) in
                value.append(2)
                throw Refused()
            }
        }
        // Taken again at once: the throw released it.
        #expect(list.withLock { $0 } == [1, 2])
    }
}
