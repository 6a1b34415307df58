import CSVStream
import Foundation

/// What `crubatch place` did with each answer, and the counts: printed as a table, JSON or CSV.
public struct PlaceReport: Sendable, CommandReport {
    public enum Outcome: String, Sendable, Codable, CaseIterable {
        /// A membership was made (or would be, in a dry run).
        case placed
        /// The student is already in a group of one of the chosen ministries (a re-run): nothing new.
        case alreadyPlaced = "already-placed"
        /// No group fits; `reason` says which rule ruled the last ones out (sex, year, time, full, no-groups).
        case noMatchingGroup = "no-matching-group"
        /// The availability answer could not be read; the student is saved, not placed.
        case unparseableAvailability = "unparseable-availability"
        /// The answer has other errors (email, name, sex, year, campus, ministry...); nothing was written for it.
        case invalid
    }

    /// Why no group fits, from the first rule that leaves no candidate.
    public enum Reason: String, Sendable, Codable, CaseIterable {
        /// The chosen ministries have no community groups at all.
        case noGroups = "no-groups"
        /// No group of the chosen ministries is open to the student's sex.
        case sex
        /// Groups open to that sex exist, but none takes the student's school year.
        case year
        /// Groups fit sex and year, but none meets (for all of its 90 minutes) inside the availability.
        case time
        /// Groups fit every rule, but all are full.
        case full
    }

    public struct Leader: Sendable, Codable, Equatable {
        public var name: String
        public var email: String
        public var phone: String?

        /// `Ana Flores <ana@cru.org> +18055550101`.
        public var contact: String { "\(name) <\(email)>" + (phone.map { " " + $0 } ?? "") }
    }

    public struct Group: Sendable, Codable, Equatable {
        public var code: String
        public var name: String
        public var ministry: String
        public var day: String?
        public var time: String?
        public var location: String?
        /// The contact the student is to receive.
        public var leaders: [Leader]

        /// `Mon 19:00`.
        public var meets: String {
            [day.map { String($0.prefix(3)) }, time].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// One answer of the file, in file order.
    public struct Entry: Sendable, Codable, Equatable {
        public var line: Int
        /// Lower case, as typed.
        public var email: String
        public var name: String
        public var outcome: Outcome
        /// For `no-matching-group` a `Reason`; for `invalid` the first diagnostic code.
        public var reason: String?
        /// A sentence for staff on why the student was not placed.
        public var message: String?
        /// The group placed in (or already in).
        public var group: Group?
        /// The availability as understood, e.g. `Mon 17:00-22:00; Wed 19:00-21:00`.
        public var availability: String?
    }

    public struct Counts: Sendable, Codable, Equatable {
        public var answers = 0
        public var placed = 0
        public var alreadyPlaced = 0
        public var noMatchingGroup = 0
        public var unparseableAvailability = 0
        public var invalid = 0
        /// `no-matching-group` answers per reason.
        public var reasons: [String: Int] = [:]
        public var peopleInserted = 0
        public var peopleUpdated = 0
        public var peopleUnchanged = 0
        public var membershipsInserted = 0
        /// Memberships ended because their student moved to another group of the same ministry.
        public var membershipsEnded = 0
        /// Notifications the memberships queued (the triggers write them), welcomes included.
        public var notificationsQueued = 0
        /// Of those, welcomes to the students placed.
        public var welcomesQueued = 0
    }

    public var file: String
    public var sha256: String?
    /// The run in `import_runs` (kind `place`), for `crubatch runs show` and `crubatch undo`.
    public var runID: Int?
    public var dryRun = false
    /// `--no-notify`: the notifications queued are recorded as suppressed, never sent.
    public var notificationsSuppressed = false
    /// The file could not be read at all (exit 65); nothing was written.
    public var unreadable = false
    public var counts = Counts()
    public var answers: [Entry] = []
    public var diagnostics: [Diagnostic] = []
    public var seconds = 0.0

    public init(file: String) {
        self.file = file
    }

    /// 0 when every answer is placed (or already was), 1 when some could not be, 65 for an unreadable file.
    public var exitStatus: ExitStatus {
        if unreadable { return .dataError }
        return answers.allSatisfy { $0.outcome == .placed || $0.outcome == .alreadyPlaced } ? .ok : .rejected
    }

    var wrote: Bool { !dryRun && !unreadable }

    mutating func add(_ entry: Entry) {
        answers.append(entry)
        counts.answers += 1
        switch entry.outcome {
        case .placed: counts.placed += 1
        case .alreadyPlaced: counts.alreadyPlaced += 1
        case .noMatchingGroup:
            counts.noMatchingGroup += 1
            counts.reasons[entry.reason ?? "", default: 0] += 1
        case .unparseableAvailability: counts.unparseableAvailability += 1
        case .invalid: counts.invalid += 1
        }
    }

    // MARK: Text

    /// The table of answers (line, outcome, student, group, leaders or why not) and the summary.
    public var text: String {
        guard !unreadable else { return verdict }
        let headers = ["line", "outcome", "student", "email", "group", "meets", "leaders (contact for the student) / why not"]
        let rows = answers.map { entry -> [String] in
            let outcome = entry.outcome.rawValue + (entry.outcome == .noMatchingGroup ? " (\(entry.reason ?? ""))" : "")
            let last = entry.group.map { $0.leaders.map(\.contact).joined(separator: "; ") } ?? entry.message ?? ""
            return [String(entry.line), outcome, entry.name, entry.email, entry.group?.code ?? "-",
                    entry.group?.meets ?? "-", last]
        }
        var table = TextTable(headers: headers, alignments: [.right] + Array(repeating: .left, count: headers.count - 1),
                              freeLastColumn: true)
        rows.forEach { table.append($0) }
        var lines = answers.isEmpty ? [] : table.lines + [""]
        lines.append(summary)
        lines.append(verdict)
        return lines.joined(separator: "\n")
    }

    /// `220 answers: 209 placed, ...`.
    public var summary: String {
        let would = dryRun ? "would be " : ""
        var parts = ["\(counts.placed) \(would)placed"]
        if counts.alreadyPlaced > 0 { parts.append("\(counts.alreadyPlaced) already placed") }
        var notPlaced = "\(counts.noMatchingGroup) with no matching group"
        if !counts.reasons.isEmpty {
            let order = Reason.allCases.map(\.rawValue)
            notPlaced += " (" + counts.reasons.sorted { (order.firstIndex(of: $0.key) ?? 99) < (order.firstIndex(of: $1.key) ?? 99) }
                .map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")"
        }
        parts.append(notPlaced)
        parts.append("\(counts.unparseableAvailability) unparseable availability")
        parts.append("\(counts.invalid) invalid")
        return "\(counts.answers) answer\(counts.answers == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }

    /// One sentence on what happened to the database.
    public var verdict: String {
        if unreadable { return "the file could not be read; nothing was written" }
        let people = "students: \(counts.peopleInserted) new, \(counts.peopleUpdated) updated, \(counts.peopleUnchanged) unchanged"
        let moves = counts.membershipsEnded > 0 ? "\(counts.membershipsEnded) ended by moves, " : ""
        let leaders = counts.notificationsQueued - counts.welcomesQueued
        let joins = "\(counts.membershipsInserted) membership\(counts.membershipsInserted == 1 ? "" : "s"), \(moves)"
            + "\(leaders) leader notification\(leaders == 1 ? "" : "s") and "
            + "\(counts.welcomesQueued) welcome\(counts.welcomesQueued == 1 ? "" : "s") "
            + (notificationsSuppressed ? "recorded as suppressed (--no-notify)" : "queued")
        let time = String(format: "%.2f", seconds)
        if dryRun { return "dry run (\(time) s), nothing was written; it would make \(people); \(joins)" }
        return "\(people); \(joins) (\(time) s\(runID.map { ", run \($0)" } ?? ""))"
    }

    // MARK: JSON and CSV

    /// The report as one JSON document for scripts.

    /// One row per answer: `line,email,outcome,reason,group,leaders,message` (RFC 4180, CRLF; cells a
    /// spreadsheet would run as formulas are neutralised).
    public func csv() -> String {
        let writer = CSVWriter(neutralizeFormulas: true)
        var bytes: [UInt8] = []
        writer.append(["line", "email", "outcome", "reason", "group", "leaders", "message"], to: &bytes)
        for entry in answers {
            writer.append([String(entry.line), entry.email, entry.outcome.rawValue, entry.reason ?? "",
                           entry.group?.code ?? "", entry.group?.leaders.map(\.contact).joined(separator: "; ") ?? "",
                           entry.message ?? ""], to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
