/// Which ways a ride goes, or an event shares rides: to the event, back from it, or both. An event
/// that shares no rides says `no` (`events.rideshare`), which is none of these.
enum RideDirection: String, Sendable, CaseIterable {
    case to, from, both

    /// The ways in words: `to the event`, `back from the event`, `to the event and back`.
    var phrase: String { phrase(event: "the event") }

    /// The ways to the event named `event` in words: `to Fall Retreat`, `back from Fall Retreat` ...
    func phrase(event: String) -> String {
        switch self {
        case .to: "to \(event)"
        case .from: "back from \(event)"
        case .both: "to \(event) and back"
        }
    }
}
