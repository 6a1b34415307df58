import Foundation

/// Python's `icalendar` and `recurring_ical_events` as an independent reader of calendars: every
/// VTIMEZONE whose TZID is a tz database name checked against the tz database hour by hour (2026
/// and 2027), then every occurrence in a window that is not cancelled printed as
/// `OCC|uid|date|weekday|HH:MM|offset|offset-by-vtimezone|utc`: for an all-day event the time is
/// `all-day`, for a floating time the offsets are `floating`.
public enum ICalendarOracle {
    static let script = #"""
        import sys
        from datetime import datetime, timedelta, timezone
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
        try:
            import icalendar
            import recurring_ical_events
        except ImportError as error:
            print("MISSING|%s" % error)
            sys.exit(3)

        def offset(td):
            minutes = int(td.total_seconds() // 60)
            sign = "-" if minutes < 0 else "+"
            minutes = abs(minutes)
            return "%s%02d:%02d" % (sign, minutes // 60, minutes % 60)

        def tz_database(tzid):
            try:
                return ZoneInfo(tzid)
            except (ZoneInfoNotFoundError, ValueError):
                return None

        with open(sys.argv[1], "rb") as f:
            cal = icalendar.Calendar.from_ical(f.read())
        first, last = (tuple(int(part) for part in day.split("-")) for day in sys.argv[2:4])

        # Each VTIMEZONE turned into a tzinfo from its own definition (not by TZID lookup).
        own = {str(vtz["TZID"]): vtz.to_tz(lookup_tzid=False) for vtz in cal.walk("VTIMEZONE")}
        # It must agree with the tz database on every hour of 2026 and 2027.
        for tzid, tz in own.items():
            reference = tz_database(tzid)
            if reference is None:
                print("TZUNCHECKED|%s" % tzid)
                continue
            t = datetime(2026, 1, 1, tzinfo=timezone.utc)
            checked = 0
            while t < datetime(2028, 1, 1, tzinfo=timezone.utc):
                a = t.astimezone(reference)
                b = t.astimezone(tz)
                if a.utcoffset() != b.utcoffset() or a.replace(tzinfo=None) != b.replace(tzinfo=None):
                    print("TZMISMATCH|%s|%s|%s|%s" % (tzid, t.isoformat(), a.isoformat(), b.isoformat()))
                checked += 1
                t += timedelta(hours=1)
            print("TZCHECKED|%s|%d" % (tzid, checked))

        # The TZID each event was written with (an expanded UTC occurrence loses its TZID parameter).
        tzids = {}
        for e in cal.walk("VEVENT"):
            tzids.setdefault(str(e["UID"]), e["DTSTART"].params.get("TZID"))
        for event in recurring_ical_events.of(cal).between(first, last):
            if str(event.get("STATUS", "")).upper() == "CANCELLED":
                continue
            start = event["DTSTART"].dt
            uid = str(event["UID"])
            if not isinstance(start, datetime):
                print("OCC|%s|%s|%s|all-day|||" % (uid, start.strftime("%Y-%m-%d"), start.strftime("%a")))
                continue
            if start.tzinfo is None:
                print("OCC|%s|%s|%s|%s|floating|floating|" % (
                    uid, start.strftime("%Y-%m-%d"), start.strftime("%a"), start.strftime("%H:%M")))
                continue
            tzid = tzids.get(uid)
            zone = (tz_database(tzid) or own.get(tzid)) if tzid else timezone.utc
            local = start.astimezone(zone)
            by_vtimezone = start.replace(tzinfo=None).replace(tzinfo=own[tzid]) if tzid in own else local
            print("OCC|%s|%s|%s|%s|%s|%s|%s" % (
                uid, local.strftime("%Y-%m-%d"), local.strftime("%a"), local.strftime("%H:%M"),
                offset(local.utcoffset()), offset(by_vtimezone.utcoffset()),
                start.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")))
        """#

    /// One expanded occurrence (an `OCC` line).
    public struct Occurrence: Sendable, Hashable {
        public var uid: String, date: String, weekday: String, time: String, offset: String, vtimezoneOffset: String
        /// The instant in UTC (`2026-09-08T02:00:00Z`); empty for all-day and floating events.
        public var utc: String
    }

    /// Expands an .ics between two days (`YYYY-MM-DD`, the last excluded); throws when Python or its
    /// packages are missing or the script fails.
    public static func expand(_ bytes: [UInt8], from first: String = "2026-09-01", until last: String = "2027-04-01") throws -> String {
        try withTemporaryFile(bytes, named: "calendar.ics") { path in
            try Python.run(script: script, arguments: [path, first, last])
        }
    }

    /// The `OCC` lines of an expansion.
    public static func occurrences(in output: String) -> [Occurrence] {
        output.split(separator: "\n").compactMap { line -> Occurrence? in
            let cells: [String] = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == 8, cells[0] == "OCC" else { return nil }
            return Occurrence(uid: cells[1], date: cells[2], weekday: cells[3], time: cells[4], offset: cells[5],
                              vtimezoneOffset: cells[6], utc: cells[7])
        }
    }
}

/// Debian's `/usr/bin/python3` (the one scripts/test installs test oracles into), run on a script.
public enum Python {
    public static let path = "/usr/bin/python3"

    /// Runs `script` with `arguments`; its standard output, or an error with what it printed.
    /// A script that prints `MISSING|<what>` and exits 3 lacks a package scripts/test installs.
    public static func run(script: String, arguments: [String] = [], input: Data? = nil) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestSetupError("\(path) is missing: run the tests with scripts/test, which installs it")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-c", script] + arguments
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let errorReader = Thread.detachNewThreadReading(stderr)
        let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let errors = errorReader()
        if output.hasPrefix("MISSING|") {
            throw TestSetupError("a Python package for this test is missing (\(output.trimmingCharacters(in: .whitespacesAndNewlines))); scripts/test installs it")
        }
        guard process.terminationStatus == 0 else {
            throw TestSetupError("python failed (\(process.terminationStatus)):\n\(errors)\(output)")
        }
        return output
    }
}

extension Thread {
    /// Reads a pipe to its end on another thread (so a chatty stderr cannot block stdout); the
    /// returned function waits for and returns what was read.
    static func detachNewThreadReading(_ pipe: Pipe) -> () -> String {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var data = Data()
        Thread.detachNewThread {
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        return {
            done.wait()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
