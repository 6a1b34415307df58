import Foundation

/// How far apart two pickup points are, in whole metres, by the best evidence both points have:
///
/// 1. both have coordinates: the great-circle distance on a sphere of the Earth's mean radius
///    (6,371.0088 km), rounded to the metre;
/// 2. else both have postal codes (compared in capitals, letters and digits only, so `93405`,
///    `k1a 0b1` and `K1A-0B1` read as typed): 0 for the same code, `nearbyPostalCode` when they share
///    their first three characters (the same US sectional centre, Canadian forward sortation area,
///    UK outward district prefix), else `otherPostalCode`;
/// 3. else the places as typed, ignoring case and runs of spaces: 0 when they are the same text
///    (not empty), else `unmatchedPlace`.
///
/// Any two different postal codes are farther apart than any two points with the same code, and
/// different or unknown places farther still, so the pairing joins neighbours first.
public enum PickupDistance {
    /// Two different postal codes that share their first three characters.
    public static let nearbyPostalCode = 10_000
    /// Two postal codes that differ within their first three characters.
    public static let otherPostalCode = 40_000
    /// Two points with nothing comparable in common: different or empty places.
    public static let unmatchedPlace = 50_000
    /// The Earth's mean radius (IUGG), in metres.
    static let earthRadius = 6_371_008.8

    public static func metres(_ a: PickupPoint, _ b: PickupPoint) -> Int {
        Table([a, b]).metres(0, 1)
    }

    /// Pickup points read once for comparing many pairs: each point's direction from the Earth's
    /// centre (a unit vector), and its postal code, postal area and place as numbers (the same text,
    /// the same number), so that comparing two points takes no text and, for most pairs, no
    /// trigonometry.
    ///
    /// Between coordinates the distance is the arc over the chord `c` between the unit vectors,
    /// `2R asin(c/2)`: the great-circle distance, growing with `c`, and never less than `R c`.
    struct Table {
        private struct Point {
            var x = 0.0, y = 0.0, z = 0.0
            var hasCoordinate = false
            /// Numbers for the normalised postal code, its first three characters and the place; -1 for none.
            var postalCode: Int32 = -1, postalArea: Int32 = -1, place: Int32 = -1
        }

        private let points: [Point]

        init(_ pickups: [PickupPoint]) {
            var numbers: [String: Int32] = [:]
            func number(_ text: String) -> Int32 {
                if let known = numbers[text] { return known }
                let new = Int32(numbers.count)
                numbers[text] = new
                return new
            }
            points = pickups.map { pickup in
                var point = Point()
                if let coordinate = pickup.coordinate {
                    let latitude = coordinate.latitude * .pi / 180, longitude = coordinate.longitude * .pi / 180
                    point.hasCoordinate = true
                    point.x = cos(latitude) * cos(longitude)
                    point.y = cos(latitude) * sin(longitude)
                    point.z = sin(latitude)
                }
                let code = String(String.UnicodeScalarView((pickup.postalCode ?? "").uppercased().unicodeScalars.filter {
                    CharacterSet.alphanumerics.contains($0)
                }))
                if !code.isEmpty {
                    // Postal codes and places are numbered apart: a code never equals a place.
                    point.postalCode = number("code " + code)
                    if code.count >= 3 { point.postalArea = number("area " + code.prefix(3)) }
                }
                let words = pickup.place.lowercased().split(whereSeparator: \.isWhitespace)
                if !words.isEmpty { point.place = number("place " + words.joined(separator: " ")) }
                return point
            }
        }

        /// The distance in metres between points `a` and `b`.
        func metres(_ a: Int, _ b: Int) -> Int {
            let p = points[a], q = points[b]
            if p.hasCoordinate && q.hasCoordinate { return Self.arc(chordSquared: Self.chordSquared(p, q)) }
            return Self.withoutCoordinates(p, q)
        }

        /// The distance between `a` and `b` when it is less than `bound` metres, else nil; most far
        /// pairs are told apart without trigonometry.
        func metres(_ a: Int, _ b: Int, below bound: Int64) -> Int? {
            guard bound > 0 else { return nil }
            let p = points[a], q = points[b]
            let metres: Int
            if p.hasCoordinate && q.hasCoordinate {
                let chordSquared = Self.chordSquared(p, q)
                // The arc is at least R c: past bound + 1 it rounds to at least bound.
                let atLeast = Double(bound) + 1
                if chordSquared * (PickupDistance.earthRadius * PickupDistance.earthRadius) >= atLeast * atLeast {
                    return nil
                }
                metres = Self.arc(chordSquared: chordSquared)
            } else {
                metres = Self.withoutCoordinates(p, q)
            }
            return Int64(metres) < bound ? metres : nil
        }

        /// A number that grows with the distance between `a` and `b`, cheaper than it: the square of
        /// the chord in metres between coordinates, else the square of the distance. Between
        /// coordinates it orders pairs as `metres` does; it only guides which pairs to try first.
        func nearness(_ a: Int, _ b: Int) -> Double {
            let p = points[a], q = points[b]
            if p.hasCoordinate && q.hasCoordinate {
                return Self.chordSquared(p, q) * (PickupDistance.earthRadius * PickupDistance.earthRadius)
            }
            let metres = Double(Self.withoutCoordinates(p, q))
            return metres * metres
        }

        /// Whether both points have coordinates, so that their distance grows with `nearness`.
        func bothMeasured(_ a: Int, _ b: Int) -> Bool { points[a].hasCoordinate && points[b].hasCoordinate }

        private static func chordSquared(_ p: Point, _ q: Point) -> Double {
            let dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z
            return dx * dx + dy * dy + dz * dz
        }

        private static func arc(chordSquared: Double) -> Int {
            Int((2 * PickupDistance.earthRadius * asin(min(1, chordSquared.squareRoot() / 2))).rounded())
        }

        private static func withoutCoordinates(_ p: Point, _ q: Point) -> Int {
            if p.postalCode >= 0 && q.postalCode >= 0 {
                if p.postalCode == q.postalCode { return 0 }
                return p.postalArea >= 0 && p.postalArea == q.postalArea
                    ? PickupDistance.nearbyPostalCode : PickupDistance.otherPostalCode
            }
            return p.place >= 0 && p.place == q.place ? 0 : PickupDistance.unmatchedPlace
        }
    }
}
