import Foundation

/// One way of a ride share: to the event, or back from it.
enum RideLeg: String, Sendable, Hashable, CaseIterable, Comparable {
    case to
    case from

    /// The way back for `to`, the way there for `from`.
    var other: RideLeg { self == .to ? .from : .to }

    /// `to` sorts before `from`, the order the legs are paired in.
    static func < (lhs: RideLeg, rhs: RideLeg) -> Bool { lhs == .to && rhs == .from }
}

/// A latitude and longitude in degrees (WGS 84).
struct Coordinate: Sendable, Hashable {
    var latitude: Double
    var longitude: Double
}

/// Where a passenger is picked up or a driver sets out: the place as typed, with its coordinates and
/// postal code when they are known. `PickupDistance` says how far apart two of them are.
struct PickupPoint: Sendable, Hashable {
    var place: String
    var coordinate: Coordinate?
    var postalCode: String?
}

/// A driver's car for one event: the departure of each leg it drives (a driver going both ways has
/// both), the seats it has on each leg, and where it sets out.
struct RideOffer: Sendable, Hashable {
    var id: Int64
    var departures: [RideLeg: Date]
    var seats: Int
    var pickup: PickupPoint
    /// The driver (a person's id), who never rides in their own car; nil when not known.
    var driverID: Int64?
}

/// A passenger's request for one event: for each leg wanted, the window the driver must depart in
/// (both ends included; `Date.distantPast ... .distantFuture` for any time), and where to be
/// picked up.
struct RideRequest: Sendable, Hashable {
    var id: Int64
    var windows: [RideLeg: ClosedRange<Date>]
    var pickup: PickupPoint
    /// The passenger (a person's id); nil when not known.
    var passengerID: Int64?
}

/// A passenger riding with a driver on one leg: a pairing made earlier, or one to make.
struct RidePair: Sendable, Hashable {
    var requestID: Int64
    var offerID: Int64
    var leg: RideLeg
}

/// A new pairing with its pickup distance.
struct RideAssignment: Sendable, Hashable {
    var pair: RidePair
    /// `PickupDistance.metres` between the passenger's and the driver's pickup points.
    var metres: Int
}

/// Why a request's leg still has no driver.
enum RideWaitReason: String, Sendable, Hashable, CaseIterable {
    /// No driver of the event drives that leg.
    case noDriverThatWay = "no-driver-that-way"
    /// Drivers drive that leg, but none departs inside the request's window.
    case noDriverInWindow = "no-driver-in-window"
    /// Drivers depart inside the window, but every seat they have on that leg is taken.
    case carsFull = "cars-full"
}

/// A request's leg that is still waiting, and why.
struct RideWaiting: Sendable, Hashable {
    var requestID: Int64
    var leg: RideLeg
    var reason: RideWaitReason
}

/// What `RidePairing.pair` decided for one event: the new pairings (those kept from earlier are not
/// repeated), the request legs still waiting, and the total pickup distance of the new pairings.
struct RidePairingResult: Sendable, Hashable {
    /// Sorted by leg (`to` first), then request id.
    var assignments: [RideAssignment]
    /// Sorted by request id, then leg.
    var waiting: [RideWaiting]
    /// The sum of the new assignments' `metres`.
    var totalMetres: Int
}
