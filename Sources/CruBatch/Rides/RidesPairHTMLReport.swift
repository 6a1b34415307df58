extension HTMLReport {
    /// The page of a `rides pair` run: each event's counts, the new pairings and the request legs
    /// still waiting with why. Rides come from the database, not from a file, so the page names them
    /// by their ids (`export rides` lists whose they are), never by a person's name or contact.
    public static func write(_ report: RidesPairReport, to target: String) throws {
        var page = HTMLReport(
            title: "crubatch rides pair\(report.dryRun ? " --dry-run" : "")", verdict: report.verdict,
            failed: report.exitStatus != .ok,
            summary: (["event", "offers", "requests", "kept", "paired", "waiting"], report.events.map { event in
                [event.code] + [event.offers, event.requests, event.kept, event.paired, event.waiting].map(String.init)
            }))
        page.changes = [Changes(kind: "ride pairings", inserted: report.pairings.map { pairing in
            "\(pairing.event), \(pairing.leg): request \(pairing.request) rides with offer \(pairing.offer), leaving \(pairing.leaves)"
        })]
        page.notes = report.waiting.map { wait in
            "\(wait.event), \(wait.leg): request \(wait.request) still waits: \(RidesPairReport.why(wait.reason))"
        }
        try page.write(to: target)
    }
}
