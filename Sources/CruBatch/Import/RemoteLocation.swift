import Foundation
import HTTPFetch

/// A URL given where a file may be (`import KIND URL`, a sources file's `source` column): what is
/// fetched, and how it is named. `webcal://` is read as https; a Google Sheets link as people copy
/// it from the address bar (`.../spreadsheets/d/ID/edit#gid=N`, `.../edit?usp=sharing`) is read
/// as that sheet's CSV export (the whole workbook as .xlsx when a sheet is chosen by name); any
/// other http(s) URL, a sheet published to the web among them, as it is.
public struct RemoteLocation: Sendable, Equatable {
    /// The URL requested.
    public let fetchURL: String
    /// The URL as given, its password masked: the name diagnostics, the run log and the sources
    /// table use.
    public let displayName: String
    /// Whether it is a Google Sheets link (whose refusals say how to share the sheet).
    public let isGoogleSheet: Bool

    /// nil when `text` is not an http, https or webcal URL (it is a path). `sheet` is the sheet a
    /// Google Sheets link is read from by name (`--sheet`).
    public init?(_ text: String, sheet: String? = nil) {
        let lowered = text.lowercased()
        var url: String
        if lowered.hasPrefix("webcal://") {
            url = "https://" + text.dropFirst("webcal://".count)
        } else if lowered.hasPrefix("https://") || lowered.hasPrefix("http://") {
            url = text
        } else {
            return nil
        }
        let export = Self.googleSheetExport(url, sheet: sheet)
        isGoogleSheet = export != nil
        if let export { url = export }
        fetchURL = url
        displayName = HTTPFetcher.masked(text)
    }

    /// The export URL of a Google Sheets editing or viewing link, or nil for any other URL (one
    /// published to the web, `/spreadsheets/d/e/...`, is already an export).
    static func googleSheetExport(_ url: String, sheet: String?) -> String? {
        guard let components = URLComponents(string: url),
              components.host?.lowercased() == "docs.google.com" else { return nil }
        let parts = components.path.split(separator: "/")
        guard parts.count >= 3, parts[0] == "spreadsheets", parts[1] == "d", parts[2] != "e" else { return nil }
        if parts.count >= 4, parts[3] == "export" { return nil }
        let id = parts[2]
        if sheet != nil { return "https://docs.google.com/spreadsheets/d/\(id)/export?format=xlsx" }
        let fromQuery = components.queryItems?.first { $0.name == "gid" }?.value
        let fromFragment = components.fragment?.split(separator: "&")
            .first { $0.hasPrefix("gid=") }.map { String($0.dropFirst(4)) }
        let gid = (fromFragment ?? fromQuery).flatMap { $0.allSatisfy(\.isNumber) && !$0.isEmpty ? $0 : nil }
        return "https://docs.google.com/spreadsheets/d/\(id)/export?format=csv" + (gid.map { "&gid=\($0)" } ?? "")
    }
}
