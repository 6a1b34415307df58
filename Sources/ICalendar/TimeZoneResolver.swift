/// What a TZID of a file stands for.
enum ResolvedTimeZone {
    /// A zone of the tz database.
    case zone(String)
    /// The file's own VTIMEZONE, whose rules match no zone of the tz database in the years of the
    /// file's events: its times are read by those rules, as instants.
    case rules(VTimeZoneRules)
}

/// Why a TZID stands for no time zone this reader can find or build.
struct UnknownTimeZone: Error {
    let message: String
}

/// Resolves the TZIDs of one VCALENDAR, each once:
///
/// 1. a name of a zone: a tz database name, the X-LIC-LOCATION of its VTIMEZONE, a Windows zone name
///    (`Pacific Standard Time`), or a tz name at the end of a longer TZID
///    (`/mozilla.org/20070129_1/America/Los_Angeles`);
/// 2. else the rules of the file's VTIMEZONE of that TZID (`GMT +0100 (Standard) / GMT +0200
///    (Daylight)`, `(UTC-05:00) Eastern Time (US & Canada)`), matched to the tz database zone that
///    keeps the same offsets throughout the years of the file's events: the zone of a Windows display
///    name first, then the zones that stand for their rules (`Europe/Brussels` for CET, `Etc/GMT-1` ...), then
///    the zones of the Windows names; used directly when none matches;
/// 3. else a Windows display name without a VTIMEZONE.
final class TimeZoneResolver {
    private let vtimezones: [String: CalendarComponent]
    /// The years whose offsets a VTIMEZONE's zone must match.
    private let years: ClosedRange<Int>
    private var resolved: [String: Result<ResolvedTimeZone, UnknownTimeZone>] = [:]

    /// The zones tried first, for the rules they keep: UTC, the zones the tz database links WET, CET,
    /// EET, EST5EDT, CST6CDT, MST7MDT and PST8PDT to (not those names: PostgreSQL reads `CET` as a
    /// fixed abbreviation), and the fixed offsets.
    private static let ruleZones =
        [
            "UTC", "Europe/Lisbon", "Europe/Brussels", "Europe/Athens", "America/New_York",
            "America/Chicago", "America/Denver", "America/Los_Angeles",
        ]
        + (-14...12).map { hours in "Etc/GMT" + (hours > 0 ? "-\(hours)" : hours < 0 ? "+\(-hours)" : "") }

    init(calendar: CalendarComponent, years: ClosedRange<Int>) {
        var vtimezones: [String: CalendarComponent] = [:]
        for zone in calendar.components where zone.name == "VTIMEZONE" {
            if let tzid = zone.property("TZID")?.value, vtimezones[tzid] == nil { vtimezones[tzid] = zone }
        }
        self.vtimezones = vtimezones
        self.years = years
    }

    /// The zone of a name alone (X-WR-TIMEZONE and the like), without reading rules.
    func zone(named name: String) -> String? {
        ([name, WindowsTimeZones.zone(named: name)].compactMap { $0 } + Self.trailingNames(of: name))
            .first { ICalFormat.timeZone($0) != nil }
    }

    func resolve(_ tzid: String) -> Result<ResolvedTimeZone, UnknownTimeZone> {
        if let known = resolved[tzid] { return known }
        let result = Self.resolve(tzid, vtimezone: vtimezones[tzid], years: years)
        resolved[tzid] = result
        return result
    }

    private static func resolve(
        _ tzid: String, vtimezone: CalendarComponent?, years: ClosedRange<Int>
    )
        -> Result<ResolvedTimeZone, UnknownTimeZone>
    {
        let location = vtimezone?.property("X-LIC-LOCATION")?.value
        let names = [tzid, location, WindowsTimeZones.zone(named: tzid)].compactMap { $0 } + trailingNames(of: tzid)
        if let zone = names.first(where: { ICalFormat.timeZone($0) != nil }) { return .success(.zone(zone)) }
        let displayed = WindowsTimeZones.zone(forDisplayName: tzid)
        guard let vtimezone else {
            if let displayed { return .success(.zone(displayed)) }
            return .failure(
                UnknownTimeZone(
                    message: "TZID \(String(reflecting: tzid)) is not a time zone: not a tz database name, "
                        + "a Windows zone name or display name, and the file has no VTIMEZONE for it"))
        }
        let rules: VTimeZoneRules
        do {
            rules = try VTimeZoneRules(vtimezone)
        } catch {
            return .failure(
                UnknownTimeZone(
                    message: "TZID \(String(reflecting: tzid)) is not a time zone name, and its "
                        + "VTIMEZONE cannot be read: \(error.message) (line \(error.line))"))
        }
        let candidates = [displayed].compactMap { $0 } + ruleZones + WindowsTimeZones.zones
        let matching = candidates.first { ICalFormat.timeZone($0).map { rules.matches($0, in: years) } ?? false }
        return .success(matching.map(ResolvedTimeZone.zone) ?? .rules(rules))
    }

    /// `Area/City` and `Area/Region/City` at the end of a longer TZID, longest first.
    private static func trailingNames(of tzid: String) -> [String] {
        let parts = tzid.split(separator: "/")
        guard parts.count > 2 else { return [] }
        return [3, 2].filter { $0 < parts.count }.map { parts.suffix($0).joined(separator: "/") }
    }
}
