import CruBatch
import FileOutput
import Foundation

/// The progress line (rows, rows/s, percent of bytes) shown on stderr, only when stderr is a terminal.
final class ProgressLine {
    let isEnabled = isatty(STDERR_FILENO) == 1
    private let started = Date()
    private var lastShown = Date.distantPast
    private var shown = false

    func show(_ progress: ImportProgress) {
        let now = Date()
        guard now.timeIntervalSince(lastShown) >= 0.2 else { return }
        lastShown = now
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let percent = progress.fileSize > 0 ? 100 * progress.bytesRead / progress.fileSize : 100
        let line = "\r\(progress.kind.rawValue): \(progress.rows) rows, \(Int(Double(progress.rows) / elapsed)) rows/s, \(percent)%"
        StandardStream.error.write(line + "\u{1B}[K")
        shown = true
    }

    func clear() {
        if shown { StandardStream.error.write("\r\u{1B}[K") }
    }
}
