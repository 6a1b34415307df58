#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an IP address is: on the machine itself, in a private or link-local network, or out on
/// the internet. A redirect from the internet into the first two is how a link reaches a cloud's
/// metadata service (169.254.169.254) or a service listening on localhost.
enum AddressReach: Equatable {
    case internet
    case local

    /// The reach of a numeric IPv4 or IPv6 address; `.local` for anything that does not parse.
    init(_ address: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            self = Self.ofIPv4(withUnsafeBytes(of: v4.s_addr) { Array($0) })
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else {
            self = .local
            return
        }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            self = Self.ofIPv4(Array(bytes[12...]))
        } else if bytes[0..<15].allSatisfy({ $0 == 0 }) && (bytes[15] == 0 || bytes[15] == 1) {
            self = .local                                       // :: and ::1
        } else if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 {
            self = .local                                       // fe80::/10, link-local
        } else if bytes[0] & 0xFE == 0xFC {
            self = .local                                       // fc00::/7, unique local
        } else {
            self = .internet
        }
    }

    /// 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12 and 192.168/16 are local.
    private static func ofIPv4(_ bytes: [UInt8]) -> AddressReach {
        switch (bytes[0], bytes[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168): .local
        case (100, 64...127), (172, 16...31): .local
        default: .internet
        }
    }
}

/// Watches the address of each connection of one fetch, the redirects' too (libcurl's open-socket
/// callback, before anything is sent): once the first went to the internet, a later one to a local
/// address is refused unless allowed. A URL given as local (a sheet on the office's own server) may redirect
/// within the local network.
final class AddressGuard {
    let allowsLocalRedirects: Bool
    private var firstReach: AddressReach?
    /// The local address a redirect was refused for.
    private(set) var refusedAddress: String?

    init(allowsLocalRedirects: Bool) {
        self.allowsLocalRedirects = allowsLocalRedirects
    }

    /// Whether a connection to `address` may be opened.
    func admits(_ address: String) -> Bool {
        let reach = AddressReach(address)
        guard let first = firstReach else {
            firstReach = reach
            return true
        }
        if first == .internet && reach == .local && !allowsLocalRedirects {
            refusedAddress = address
            return false
        }
        return true
    }
}
