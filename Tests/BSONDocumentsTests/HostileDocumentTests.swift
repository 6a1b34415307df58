import BSONDocuments
import CruBatchTestSupport
import Foundation
import Testing

/// Documents no MongoDB server writes: nested past its limit, or holding text that is not UTF-8.
/// Each is refused by name, never a crash and never a repaired value.
@Suite struct HostileDocumentTests {
    let scratch = ScratchDirectory()

    @Test func aDocumentNestedTwentyThousandLevelsIsRefusedNotACrash() throws {
        let path = try scratch.folder() + "/deep.bson"
        try HostileBSON.nested(levels: 20_000).write(to: URL(fileURLWithPath: path))
        let reader = try BSONFileReader(path: path)
        #expect(throws: DocumentFileError(path: path, position: 1,
                                          message: "document 1 nests documents or arrays more than 100 levels deep, which MongoDB never stores")) {
            try reader.next()
        }
    }

    @Test func mongoDBsOwnLimitOfAHundredLevelsIsRead() throws {
        let path = try scratch.folder() + "/limit.bson"
        try (HostileBSON.nested(levels: 100) + HostileBSON.nested(levels: 101)).write(to: URL(fileURLWithPath: path))
        let reader = try BSONFileReader(path: path)
        var document = try #require(try reader.next())
        var levels = 0
        while case .document(let inner) = document["a"] {
            levels += 1
            document = inner
        }
        #expect(levels == 100)
        #expect(throws: DocumentFileError.self) { try reader.next() }
    }

    @Test func extendedJSONNestedPastTheLimitIsRefusedByLine() throws {
        let deep = String(repeating: "{\"a\":", count: 101) + "1" + String(repeating: "}", count: 101)
        let path = try scratch.writeFile("deep.json", "{\"_id\":1}\n{\"_id\":2,\"x\":\(deep)}\n")
        #expect(throws: DocumentFileError(path: path, position: 2,
                                          message: "this document nests documents or arrays more than 100 levels deep, which MongoDB never stores")) {
            try ExtendedJSONReader.readAll(path: path)
        }
    }

    @Test func textThatIsNotUTF8IsRefusedNamingTheFieldNotStoredAsAReplacementCharacter() throws {
        let path = try scratch.folder() + "/latin1.bson"
        let document = HostileBSON.document([
            HostileBSON.string("name", Array("Caf".utf8) + [0xE9]),
            HostileBSON.document("location", [HostileBSON.string("suburb", [0x53, 0xFF])]),
        ])
        try document.write(to: URL(fileURLWithPath: path))
        let reader = try BSONFileReader(path: path)
        do {
            _ = try reader.next()
            Issue.record("a document with Latin-1 text was read")
        } catch {
            #expect(error.position == 1)
            #expect(error.message.hasPrefix("document 1: name holds text that is not UTF-8") || error.message.hasPrefix("document 1: location.suburb holds text that is not UTF-8"),
                    "\(error.message)")
        }
    }
}
