import Foundation

/// Polls `condition` every 50 ms until it holds; fails the test after `seconds`.
func waitUntil(_ what: String, seconds: Double = 20, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        guard Date() < deadline else { throw TestSetupError("timed out after \(seconds) s waiting until \(what)") }
        Thread.sleep(forTimeInterval: 0.05)
    }
}
