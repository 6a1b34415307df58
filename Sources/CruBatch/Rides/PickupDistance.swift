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
enum PickupDistance {
    /// Two different postal codes that share their first three characters.
    static let nearbyPostalCode = 10_000
    /// Two postal codes that differ within their first three characters.
    static let otherPostalCode = 40_000
    /// Two points with nothing comparable in common: different or empty places.
    static let unmatchedPlace = 50_000
    /// The Earth's mean radius (IUGG), in metres.
    static let earthRadius = 6_371_008.8

    static func metres(_ a: PickupPoint, _ b: PickupPoint) -> Int {
        Table([a, b]).metres(0, 1)
    }

    /// Pickup points read once for comparing many pairs: each point's direction from the Earth's
    /// centre (a unit vector), and its postal code, postal area and place as numbers (the same text,
    /// the same number), so that comparing two points takes no text.
    ///
    /// Between coordinates the distance is the arc over the chord `c` between the unit vectors,
    /// `2R asin(c/2)`: the great-circle distance, growing with `c`, and never less than `R c`.
    struct Table {
        private struct Point {
            var vector = SIMD3<Double>.zero
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
                    point.vector = SIMD3(cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
                }
                let code = Self.postalCode(pickup.postalCode ?? "")
                if !code.isEmpty {
                    // Postal codes and places are numbered apart: a code never equals a place.
                    point.postalCode = number("code " + code)
                    if code.count >= 3 { point.postalArea = number("area " + code.prefix(3)) }
                }
                let place = Self.place(pickup.place)
                if !place.isEmpty { point.place = number("place " + place) }
                return point
            }
        }

        /// A postal code as compared: in capitals, letters and digits only.
        static func postalCode(_ typed: String) -> String {
            if let printable = Self.printableASCII(typed) {
                return String(decoding: printable.lazy.filter(\.isASCIIAlphanumeric).map(\.asciiUppercased),
                              as: UTF8.self)
            }
            let scalars = typed.uppercased().unicodeScalars
            return String(String.UnicodeScalarView(scalars.filter { CharacterSet.alphanumerics.contains($0) }))
        }

        /// A place as compared: in small letters, its words joined by single spaces.
        static func place(_ typed: String) -> String {
            if let printable = Self.printableASCII(typed) {
                // Printable ASCII has one white space: the space.
                return printable.split(separator: UInt8(ascii: " "))
                    .map { String(decoding: $0.lazy.map(\.asciiLowercased), as: UTF8.self) }
                    .joined(separator: " ")
            }
            return typed.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }

        /// The bytes of text typed in printable ASCII only (most pickups), which compare without
        /// Unicode tables; nil for any other text.
        private static func printableASCII(_ text: String) -> [UInt8]? {
            let bytes = Array(text.utf8)
            return bytes.allSatisfy { (0x20...0x7E).contains($0) } ? bytes : nil
        }

        /// The distance in metres between points `a` and `b`.
        func metres(_ a: Int, _ b: Int) -> Int {
            let p = points[a], q = points[b]
            if p.hasCoordinate && q.hasCoordinate {
                return Self.metres(chordSquared: Self.chordSquared(p.vector, q.vector))
            }
            return Self.withoutCoordinates(p, q)
        }

        /// The direction of point `index` from the Earth's centre, nil without coordinates.
        func unitVector(_ index: Int) -> SIMD3<Double>? {
            points[index].hasCoordinate ? points[index].vector : nil
        }

        /// The distance in metres of the arc over a chord (of the unit sphere) whose square is given.
        static func metres(chordSquared: Double) -> Int {
            Int((2 * PickupDistance.earthRadius * asin(min(1, chordSquared.squareRoot() / 2))).rounded())
        }

        /// The square of the chord between two unit vectors.
        static func chordSquared(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
            let d = a - b
            return (d * d).sum()
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
