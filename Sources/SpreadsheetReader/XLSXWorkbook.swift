import Foundation

/// An .xlsx workbook opened for reading: its sheets in order, and what every sheet's cells need to
/// be read as text (shared strings, number formats, the date system). Sheets are read one row at a
/// time by `XLSXTableReader`.
public final class XLSXWorkbook {
    /// A worksheet: its name as the tabs show it and its part in the package.
    public struct Sheet: Sendable, Equatable {
        public let name: String
        public let isVisible: Bool
        let part: String
        /// The size of the sheet's XML, for progress.
        let xmlSize: Int
    }

    public let path: String
    public let sheets: [Sheet]
    let context: SheetContext

    /// Reads the workbook part, its relationships, styles and shared strings. Throws `notAWorkbook`.
    public init(path: String, limits: WorkbookLimits = WorkbookLimits()) throws(WorkbookError) {
        let package = try WorkbookPackage(path: path, limits: limits)
        guard let workbook = try package.data(of: "xl/workbook.xml") else {
            throw .notAWorkbook(path: path, reason: "it has no workbook part (xl/workbook.xml)")
        }
        let relationships = try Self.relationships(package)
        var declared: [(name: String, id: String, visible: Bool)] = []
        var dateSystem = DateSystem.from1900
        let workbookError = ElementVisitor.walk(workbook) { name, attributes, _ in
            if name == "sheet", let sheetName = attributes["name"], let id = attributes["id"] {
                declared.append((sheetName, id, (attributes["state"] ?? "visible") == "visible"))
            } else if name == "workbookPr", let flag = attributes["date1904"] {
                dateSystem = flag == "1" || flag == "true" ? .from1904 : .from1900
            }
        }
        if let workbookError { throw .notAWorkbook(path: path, reason: "its workbook part is damaged (\(workbookError))") }
        let sheets = declared.compactMap { sheet in
            relationships.targets[sheet.id].map {
                Sheet(name: sheet.name, isVisible: sheet.visible, part: $0, xmlSize: package.size(of: $0))
            }
        }
        guard !sheets.isEmpty else { throw .notAWorkbook(path: path, reason: "it has no sheets") }
        let (styles, stylesError) = CellStyles.read(try package.data(of: "xl/styles.xml"))
        if let stylesError { throw .notAWorkbook(path: path, reason: "its styles part is damaged (\(stylesError))") }
        let strings = try SharedStrings.read(from: package, part: relationships.sharedStrings)
        self.path = path
        self.sheets = sheets
        self.context = SheetContext(strings: strings, styles: styles, dateSystem: dateSystem, limits: limits)
    }

    /// The sheet called `name`, or the first visible one.
    public func sheet(named name: String?) throws(WorkbookError) -> Sheet {
        guard let name else { return sheets.first(where: \.isVisible) ?? sheets[0] }
        guard let sheet = sheets.first(where: { $0.name == name })
                ?? sheets.first(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw .noSuchSheet(path: path, sheet: name, available: sheets.map(\.name))
        }
        return sheet
    }

    /// Starts reading a sheet's rows.
    func rows(of sheet: Sheet) -> SheetRowStream {
        SheetRowStream(packagePath: path, part: sheet.part, context: context)
    }

    /// `xl/_rels/workbook.xml.rels`: each relationship id's part, and the shared strings part.
    private static func relationships(_ package: WorkbookPackage) throws(WorkbookError)
        -> (targets: [String: String], sharedStrings: String?) {
        guard let data = try package.data(of: "xl/_rels/workbook.xml.rels") else {
            throw .notAWorkbook(path: package.path, reason: "it has no workbook relationships (xl/_rels/workbook.xml.rels)")
        }
        var targets: [String: String] = [:]
        var sharedStrings: String?
        let error = ElementVisitor.walk(data) { name, attributes, _ in
            guard name == "Relationship", let id = attributes["Id"], let target = attributes["Target"] else { return }
            // Targets are relative to xl/, or absolute within the package.
            let part = target.hasPrefix("/") ? String(target.dropFirst()) : "xl/" + target
            targets[id] = part
            if attributes["Type"]?.hasSuffix("/sharedStrings") == true { sharedStrings = part }
        }
        if let error { throw .notAWorkbook(path: package.path, reason: "its relationships are damaged (\(error))") }
        return (targets, sharedStrings)
    }
}
