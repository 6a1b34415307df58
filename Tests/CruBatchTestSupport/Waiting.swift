import Foundation

/// Asks `condition` again and again, a moment apart, until it holds or `timeout` seconds have passed,
/// and says whether it held: a test waits for a process, a file or a message as long as it takes
/// (up to a bound) instead of sleeping a fixed time and hoping.
@discardableResult
public func waitUntil(timeout: TimeInterval, condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.025)
    }
}
