/// What `people merge` did: the run, and per pair what moved from the person dropped to the one kept.
public struct MergeReport: Sendable, CommandReport {
    /// One pair merged.
    public struct Merged: Sendable, Encodable {
        public let keep: String
        public let drop: String
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

        init(keep: String, drop: String) {
            (self.keep, self.drop) = (keep, drop)
        }

        /// `merged beth@x.edu into liz@y.edu: 2 memberships, 1 ministry, ...` (`would merge` in a dry run).
        func text(dryRun: Bool) -> String {
            let counts = [(memberships, "membership", "memberships"), (ministries, "ministry", "ministries"),
                          (leading, "group or team led", "groups or teams led"),
                          (rides, "ride offer or request", "ride offers or requests"), (attendance, "check-in", "check-ins"),
                          (notifications, "notification", "notifications")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2)" }
            return "\(dryRun ? "would merge" : "merged") \(drop) into \(keep): "
                + (counts.isEmpty ? "nothing to move" : counts.joined(separator: ", "))
                + (filled.isEmpty ? "" : "; \(dryRun ? "would fill" : "filled") \(filled.joined(separator: ", "))")
                + "; \(drop) \(dryRun ? "would become" : "is now") an alias of \(keep)"
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
