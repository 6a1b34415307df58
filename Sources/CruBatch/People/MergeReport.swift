/// What `people merge` did: the run, and per pair what moved from the person dropped to the one kept.
public struct MergeReport: Sendable, CommandReport {
    /// One pair merged.
    public struct Merged: Sendable, Encodable {
        /// The person kept and the one merged into them, by their emails when merged.
        public let keep: String
        public let drop: String
        /// The emails given for them, which may be aliases of theirs (`asked_keep`, `asked_drop`).
        public let askedKeep: String
        public let askedDrop: String
        /// The emails merged into DROP before, which become KEEP's aliases with DROP's own.
        public let dropAliases: [String]
        /// DROP's memberships (moved, or folded into KEEP's in a group both were in).
        public var memberships = 0
        public var ministries = 0
        /// Groups and teams DROP led.
        public var leading = 0
        /// Ride offers and requests.
        public var rides = 0
        public var attendance = 0
        /// Notifications to DROP or about DROP's rows, now KEEP's.
        public var notifications = 0
        /// KEEP's columns that were empty and were filled from DROP.
        public var filled: [String] = []
        /// Pending newcomer messages about a check-in of theirs, cancelled: the person is no newcomer.
        public var newcomerMessagesCancelled = 0

        init(keep: String, drop: String, askedKeep: String, askedDrop: String, dropAliases: [String]) {
            (self.keep, self.drop, self.askedKeep, self.askedDrop, self.dropAliases) = (keep, drop, askedKeep, askedDrop, dropAliases)
        }

        private enum CodingKeys: String, CodingKey {
            case keep, drop, askedKeep = "asked_keep", askedDrop = "asked_drop", dropAliases = "drop_aliases",
                 memberships, ministries, leading, rides, attendance, notifications, filled,
                 newcomerMessagesCancelled = "newcomer_messages_cancelled"
        }

        /// `merged beth@x.edu into liz@y.edu: 2 memberships, 1 ministry, ...` (`would merge` in a dry run).
        func text(dryRun: Bool) -> String {
            let counts = [(memberships, "membership", "memberships"), (ministries, "ministry", "ministries"),
                          (leading, "group or team led", "groups or teams led"),
                          (rides, "ride offer or request", "ride offers or requests"), (attendance, "check-in", "check-ins"),
                          (notifications, "notification", "notifications")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2)" }
            let asked = [(askedDrop, drop), (askedKeep, keep)].filter { $0.0 != $0.1 }
                .map { "\($0.0) is an alias of \($0.1)" }
            let becoming = dropAliases.isEmpty ? "\(drop) \(dryRun ? "would become" : "is now") an alias"
                : "\(drop) and its aliases \(dropAliases.joined(separator: ", ")) \(dryRun ? "would become" : "are now") aliases"
            return "\(dryRun ? "would merge" : "merged") \(drop) into \(keep)"
                + (asked.isEmpty ? "" : " (\(asked.joined(separator: "; ")))") + ": "
                + (counts.isEmpty ? "nothing to move" : counts.joined(separator: ", "))
                + (filled.isEmpty ? "" : "; \(dryRun ? "would fill" : "filled") \(filled.joined(separator: ", "))")
                + (newcomerMessagesCancelled == 0 ? ""
                    : "; \(newcomerMessagesCancelled) newcomer message\(newcomerMessagesCancelled == 1 ? "" : "s") \(dryRun ? "would be " : "")cancelled (no newcomer)")
                + "; \(becoming) of \(keep)"
        }
    }

    public let runID: Int
    public let merged: [Merged]
    /// Rolled back: nothing was written.
    public let dryRun: Bool

    private enum CodingKeys: String, CodingKey {
        case runID = "run_id", merged, dryRun = "dry_run"
    }

    public var text: String {
        let closing = dryRun
            ? "dry run (run \(runID)): nothing was written"
            : "run \(runID) (crubatch undo \(runID) puts both people back)"
        return (merged.map { $0.text(dryRun: dryRun) } + [closing]).joined(separator: "\n")
    }
}
