import BSONDocuments
import CruBatchTestSupport
import Foundation
import Testing

/// The BSON files mongodump writes and the Extended JSON mongoexport writes read to the same documents.
@Suite struct DocumentReaderTests {
    let scratch = ScratchDirectory()

    @Test func bsonAndBothExtendedJSONFormsReadToTheSameDocuments() throws {
        let dump = try KeystoneDump.generate(into: try scratch.folder("gen"), faults: true)
        var total = 0
        for collection in KeystoneDump.collections {
            let fromBSON = try BSONFileReader.readAll(path: "\(dump.bson)/\(collection).bson")
            let relaxed = try ExtendedJSONReader.readAll(path: "\(dump.relaxedJSON)/\(collection).json")
            let canonical = try ExtendedJSONReader.readAll(path: "\(dump.canonicalJSON)/\(collection).json")
            #expect(relaxed.map(\.document) == fromBSON, "\(collection): relaxed Extended JSON")
            #expect(canonical.map(\.document) == fromBSON, "\(collection): canonical Extended JSON")
            #expect(relaxed.map(\.line) == Array(1..<relaxed.count + 1), "\(collection): one document a line")
            total += fromBSON.count
        }
        #expect(total == (try dump.expected()["documents"]))
    }

    @Test func valuesReadAsTheirTypes() throws {
        let dump = try KeystoneDump.generate(into: try scratch.folder("gen"))
        let events = try BSONFileReader.readAll(path: dump.bson + "/events.bson")
        let weekly = try #require(events.first { $0["slug"] == .string("cru-weekly") })
        // 2026-09-25T02:00:00.250Z
        #expect(weekly["startDate"] == .date(1_790_301_600_250))
        #expect(weekly["rideSharing"] == .bool(false))
        #expect(weekly["__v"] == .int(0))
        guard case .document(let location) = weekly["location"], case .array(let geo) = location["geo"] else {
            Issue.record("location is no sub-document with a geo array")
            return
        }
        #expect(geo == [.double(-120.66), .double(35.3)])
        #expect(weekly.id?.count == 24 && weekly.id?.hasPrefix("5a1f") == true)

        let users = try ExtendedJSONReader.readAll(path: dump.relaxedJSON + "/users.json").map(\.document)
        guard case .document(let name) = users.first(where: { $0["email"] == .string("nnowak@calpoly.edu") })?["name"] else {
            Issue.record("no user nnowak with a name")
            return
        }
        #expect(name["first"] == .string("Niccolò"))
        let missions = try ExtendedJSONReader.readAll(path: dump.canonicalJSON + "/summermissions.json").map(\.document)
        #expect(missions.map { $0["cost"] } == [.double(3450), .double(3875.5)])
    }

    @Test func aCutShortFileNamesTheDocument() throws {
        let dump = try KeystoneDump.generate(into: try scratch.folder("gen"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dump.bson + "/campuses.bson"))
        let cut = try scratch.writeFile("cut.bson", "")
        try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: cut))
        let reader = try BSONFileReader(path: cut)
        #expect(try reader.next() != nil)
        #expect(throws: DocumentFileError(path: cut, position: 2,
                                          message: "document 2 is not BSON (cut short or corrupt): is this file from mongodump?")) {
            try reader.next()
        }
    }

    @Test func aBrokenJSONLineIsNamed() throws {
        let file = try scratch.writeFile("users.json", "{\"_id\":{\"$oid\":\"5a1f3a069c0e4b2d17000006\"}}\n{\"_id\":\n")
        #expect(throws: DocumentFileError.self) { try ExtendedJSONReader.readAll(path: file) }
        do {
            _ = try ExtendedJSONReader.readAll(path: file)
        } catch {
            #expect(error.position == 2)
        }
        let array = try scratch.writeFile("array.json", "[{\"a\":{\"$numberLong\":\"9007199254740993\"}}]")
        #expect(try ExtendedJSONReader.readAll(path: array).map(\.document) == [BSONDocument(["a": .int(9_007_199_254_740_993)])])
    }
}
