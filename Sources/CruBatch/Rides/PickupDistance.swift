import Foundation

/// How far apart two pickup points are, in whole metres, by the best evidence both points have:
///
/// 1. both have coordinates: the great-circle distance (haversine on a sphere of the Earth's mean
///    radius, 6,371.0088 km), rounded to the metre;
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
        Prepared(a).metres(to: Prepared(b))
    }

    /// A pickup point read once for comparing with many: radians, the normalised code and place.
    struct Prepared {
        var latitude = 0.0, longitude = 0.0, cosLatitude = 0.0
        var hasCoordinate = false
        var postalCode: String?
        var place: String?

        init(_ point: PickupPoint) {
            if let coordinate = point.coordinate {
                hasCoordinate = true
                latitude = coordinate.latitude * .pi / 180
                longitude = coordinate.longitude * .pi / 180
                cosLatitude = cos(latitude)
            }
            postalCode = point.postalCode.map { code in
                String(String.UnicodeScalarView(code.uppercased().unicodeScalars.filter {
                    CharacterSet.alphanumerics.contains($0)
                }))
            }.flatMap { $0.isEmpty ? nil : $0 }
            let words = point.place.lowercased().split(whereSeparator: \.isWhitespace)
            place = words.isEmpty ? nil : words.joined(separator: " ")
        }

        func metres(to other: Prepared) -> Int {
            if hasCoordinate && other.hasCoordinate {
                let halfLatitude = sin((other.latitude - latitude) / 2)
                let halfLongitude = sin((other.longitude - longitude) / 2)
                let h = halfLatitude * halfLatitude + cosLatitude * other.cosLatitude * halfLongitude * halfLongitude
                return Int((2 * PickupDistance.earthRadius * asin(min(1, h.squareRoot()))).rounded())
            }
            if let code = postalCode, let otherCode = other.postalCode {
                if code == otherCode { return 0 }
                let shared = code.count >= 3 && otherCode.count >= 3 && code.prefix(3) == otherCode.prefix(3)
                return shared ? PickupDistance.nearbyPostalCode : PickupDistance.otherPostalCode
            }
            if let place, place == other.place { return 0 }
            return PickupDistance.unmatchedPlace
        }
    }
}
