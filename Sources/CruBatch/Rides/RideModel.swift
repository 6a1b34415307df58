import Foundation

/// One way of a ride share: to the event, or back from it.
public enum RideLeg: String, Sendable, Hashable, CaseIterable, Comparable {
    case to
    case from

    /// The way back for `to`, the way there for `from`.
    public var other: RideLeg { self == .to ? .from : .to }

    /// `to` sorts before `from`, the order the legs are paired in.
    public static func < (lhs: RideLeg, rhs: RideLeg) -> Bool { lhs == .to && rhs == .from }
}

/// A latitude and longitude in degrees (WGS 84).
public struct Coordinate: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Where a passenger is picked up or a driver sets out: the place as typed, with its coordinates and
/// postal code when they are known. `PickupDistance` says how far apart two of them are.
public struct PickupPoint: Sendable, Hashable {
    public var place: String
    public var coordinate: Coordinate?
    public var postalCode: String?

    public init(place: String, coordinate: Coordinate? = nil, postalCode: String? = nil) {
        self.place = place
        self.coordinate = coordinate
        self.postalCode = postalCode
    }
}

/// A driver's car for one event: the departure of each leg it drives (a driver going both ways has
/// both), the seats it has on each leg, and where it sets out.
public struct RideOffer: Sendable, Hashable {
    public var id: Int64
    public var departures: [RideLeg: Date]
    public var seats: Int
    public var pickup: PickupPoint
    /// The driver (a person's id), who never rides in their own car; nil when not known.
    public var driverID: Int64?

    public init(id: Int64, departures: [RideLeg: Date], seats: Int, pickup: PickupPoint, driverID: Int64? = nil) {
        self.id = id
        self.departures = departures
        self.seats = seats
        self.pickup = pickup
        self.driverID = driverID
    }
}

/// A passenger's request for one event: for each leg wanted, the window the driver must depart in
/// (both ends included; `Date.distantPast ... .distantFuture` for any time), and where to be
/// picked up.
public struct RideRequest: Sendable, Hashable {
    public var id: Int64
    public var windows: [RideLeg: ClosedRange<Date>]
    public var pickup: PickupPoint
    /// The passenger (a person's id); nil when not known.
    public var passengerID: Int64?

    public init(id: Int64, windows: [RideLeg: ClosedRange<Date>], pickup: PickupPoint, passengerID: Int64? = nil) {
        self.id = id
        self.windows = windows
        self.pickup = pickup
        self.passengerID = passengerID
    }
}

/// A passenger riding with a driver on one leg: a pairing made earlier, or one to make.
public struct RidePair: Sendable, Hashable {
    public var requestID: Int64
    public var offerID: Int64
    public var leg: RideLeg

    public init(requestID: Int64, offerID: Int64, leg: RideLeg) {
        self.requestID = requestID
        self.offerID = offerID
        self.leg = leg
    }
}

/// A new pairing with its pickup distance.
public struct RideAssignment: Sendable, Hashable {
    public var pair: RidePair
    /// `PickupDistance.metres` between the passenger's and the driver's pickup points.
    public var metres: Int
}

/// Why a request's leg still has no driver.
public enum RideWaitReason: String, Sendable, Hashable, CaseIterable {
    /// No driver of the event drives that leg.
    case noDriverThatWay = "no-driver-that-way"
    /// Drivers drive that leg, but none departs inside the request's window.
    case noDriverInWindow = "no-driver-in-window"
    /// Drivers depart inside the window, but every seat they have on that leg is taken.
    case carsFull = "cars-full"
}

/// A request's leg that is still waiting, and why.
public struct RideWaiting: Sendable, Hashable {
    public var requestID: Int64
    public var leg: RideLeg
    public var reason: RideWaitReason
}

/// What `RidePairing.pair` decided for one event: the new pairings (those kept from earlier are not
/// repeated), the request legs still waiting, and the total pickup distance of the new pairings.
public struct RidePairingResult: Sendable, Hashable {
    /// Sorted by leg (`to` first), then request id.
    public var assignments: [RideAssignment]
    /// Sorted by request id, then leg.
    public var waiting: [RideWaiting]
    /// The sum of the new assignments' `metres`.
    public var totalMetres: Int
}
