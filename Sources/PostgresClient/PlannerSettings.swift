/// Settings of the session's planner (or any other run-time parameter) for a piece of work whose
/// plans the statistics can mislead: each set for the work and given back its former value after,
/// whatever the work did.
public struct PlannerSettings: Sendable {
    public let settings: [(name: String, value: String)]

    public init(_ settings: [(name: String, value: String)]) {
        self.settings = settings
    }

    /// Hash joins rather than nested loops: for set-based statements over whole files or lists,
    /// where a nested loop (chosen when a table's statistics call it empty, or a temporary table's
    /// join is guessed to give a row or two) would scan its inner table once for each outer row.
    public static let hashJoins = PlannerSettings([("enable_nestloop", "off")])

    /// Runs `work` on `connection` under these settings.
    public func apply<T>(on connection: PostgresConnection, _ work: () throws -> T) throws -> T {
        let saved = try settings.map { setting in
            try connection.query("select current_setting(\(setting.name))").scalar(String.self)
        }
        for setting in settings {
            try connection.query("select set_config(\(setting.name), \(setting.value), false)")
        }
        defer {
            for (setting, value) in zip(settings, saved) {
                _ = try? connection.query("select set_config(\(setting.name), \(value), false)")
            }
        }
        return try work()
    }
}
