import Foundation

/// Python's `icalendar` and `recurring_ical_events` as an independent reader of the calendars we
/// write: every VTIMEZONE checked against the tz database hour by hour, then every occurrence
/// between September and April printed as `OCC|uid|date|weekday|HH:MM|offset|offset-by-vtimezone`.
public enum ICalendarOracle {
    static let script = #"""
        import sys
        from datetime import datetime, timedelta, timezone
        from zoneinfo import ZoneInfo
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

        with open(sys.argv[1], "rb") as f:
            cal = icalendar.Calendar.from_ical(f.read())

        # Each VTIMEZONE turned into a tzinfo from its own definition (not by TZID lookup).
        own = {str(vtz["TZID"]): vtz.to_tz(lookup_tzid=False) for vtz in cal.walk("VTIMEZONE")}
        # It must agree with the tz database on every hour the calendar covers.
        for tzid, tz in own.items():
            reference = ZoneInfo(tzid)
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
        tzids = {str(e["UID"]): str(e["DTSTART"].params["TZID"]) for e in cal.walk("VEVENT")}
        for event in recurring_ical_events.of(cal).between((2026, 9, 1), (2027, 4, 1)):
            start = event["DTSTART"].dt
            tzid = tzids[str(event["UID"])]
            local = start.astimezone(ZoneInfo(tzid))
            by_vtimezone = start.replace(tzinfo=None).replace(tzinfo=own[tzid])
            print("OCC|%s|%s|%s|%s|%s|%s" % (
                event["UID"], local.strftime("%Y-%m-%d"), local.strftime("%a"), local.strftime("%H:%M"),
                offset(local.utcoffset()), offset(by_vtimezone.utcoffset())))
        """#

    /// Expands an .ics; throws when Python or its packages are missing or the script fails.
    public static func expand(_ bytes: [UInt8]) throws -> String {
        try withTemporaryFile(bytes, named: "calendar.ics") { path in
            try Python.run(script: script, arguments: [path])
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
