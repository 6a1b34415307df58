import CSVStream
import FileOutput
import Foundation
import PostgresClient

/// `export rides --event CODE` and nightly's rides files.
extension Exporter {
    /// The event's cars for people (`RideCars.blocks`): each block followed by an empty line, UTF-8
    /// with a BOM as rosters for people are, cells that would start a formula neutralised. Rows: cars.
    public func exportRidesCSV(event: String, to target: OutputTarget) throws -> ExportedFile {
        let cars = try RideCars.load(event: event, connection: connection)
        let writer = CSVWriter(neutralizeFormulas: true)
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        for block in cars.blocks {
            for line in block { writer.append(line, to: &bytes) }
            bytes += [0x0D, 0x0A]
        }
        return try write(bytes, rows: cars.cars.count, to: target)
    }

    /// The event's cars as one JSON document for scripts:
    /// `{"format": 1, "command": "export", "kind": "rides", "event": {...}, "cars": [...]}`.
    public func exportRidesJSON(event: String, to target: OutputTarget) throws -> ExportedFile {
        let cars = try RideCars.load(event: event, connection: connection)
        let document = ReportDocument.json(RidesDocument(cars: cars), command: "export")
        return try write(Array((document + "\n").utf8), rows: cars.cars.count, to: target)
    }

    /// The codes of the events that share rides and have not ended by `date` (nor been archived),
    /// in code order: nightly writes a rides file for each.
    public func upcomingRideShareEvents(on date: Date) throws -> [String] {
        try connection.query("""
            select e.code from events e
            where e.rideshare <> 'no' and \(unescaped: Retirement.archive.isCurrent(over: "e"))
            and coalesce(e.ends_at, e.starts_at) >= to_timestamp(\(date.timeIntervalSince1970))
            order by e.code
            """).rows.map { try $0.decode(String.self, 0) }
    }
}

/// The body of the rides JSON document (`ReportDocument` adds the format and command).
private struct RidesDocument: Encodable {
    let kind = "rides"
    let cars: RideCars

    enum Keys: String, CodingKey { case kind, event, cars }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(cars.event, forKey: .event)
        try container.encode(cars.cars, forKey: .cars)
    }
}
