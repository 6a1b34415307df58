/// What a run that writes was, as `import_runs.kind` stores it: the kind an import loaded
/// (`students`), or the command (`place`, `forget`, `rides-cancel`, `rides-pair`, `people-merge`). The stored
/// words never change: `runs` and `undo` read those of every run ever recorded.
enum RunKind: Equatable {
    case `import`(Kind)
    case place
    case forget
    case ridesCancel
    case ridesPair
    case peopleMerge

    /// The kind of the run stored as `stored`; nil for a word no run writes.
    init?(stored: String) {
        switch stored {
        case "place": self = .place
        case "forget": self = .forget
        case "rides-cancel": self = .ridesCancel
        case "rides-pair": self = .ridesPair
        case "people-merge": self = .peopleMerge
        default:
            guard let kind = Kind(rawValue: stored) else { return nil }
            self = .import(kind)
        }
    }

    /// The word `import_runs.kind` holds.
    var stored: String {
        switch self {
        case .import(let kind): kind.rawValue
        case .place: "place"
        case .forget: "forget"
        case .ridesCancel: "rides-cancel"
        case .ridesPair: "rides-pair"
        case .peopleMerge: "people-merge"
        }
    }

    /// Whether the change-log triggers file what the run changes under its id (`crubatch.run_id`):
    /// all but `forget`, which keeps no image of the person it erases.
    var logsChanges: Bool { self != .forget }

    /// What a run was, for messages: `import groups groups.csv`, `place answers.csv`, `forget`,
    /// `rides cancel offer 12`, `rides pair event fall-retreat-2026`, `people merge liz@x.edu <- beth@y.com`.
    func description(file: String) -> String {
        switch self {
        case .import(let kind): "import \(kind.rawValue) \(file)"
        case .place: "place \(file)"
        case .forget: "forget"
        case .ridesCancel: "rides cancel \(file)"
        case .ridesPair: "rides pair \(file)"
        case .peopleMerge: "people merge \(file)"
        }
    }
}
