/// Which ways a ride goes, or an event shares rides: to the event, back from it, or both. An event
/// that shares no rides says `no` (`events.rideshare`), which is none of these.
enum RideDirection: String, Sendable, CaseIterable {
    case to, from, both

    /// The ways in words: `to the event`, `back from the event`, `to the event and back`.
    var phrase: String {
        switch self {
        case .to: "to the event"
        case .from: "back from the event"
        case .both: "to the event and back"
        }
    }
}
