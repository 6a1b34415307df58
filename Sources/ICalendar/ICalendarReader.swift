/// Why an iCalendar file cannot be read at all: the physical line (1-based) where reading stopped
/// and what is wrong there.
public struct ICalendarSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let message: String

    public var description: String { "line \(line): \(message)" }
}

/// One content line after unfolding: `NAME;PARAM=value:value`.
public struct ContentLine: Sendable, Equatable {
    /// The property name in upper case (`DTSTART`, `X-WR-CALNAME`).
    public let name: String
    /// Parameter values by upper-case parameter name, unquoted (`TZID` → `["America/Los_Angeles"]`).
    public let parameters: [String: [String]]
    /// The value exactly as written (TEXT values are still escaped).
    public let value: String
    /// The physical line the content line starts on.
    public let line: Int

    /// The first value of a parameter.
    public func parameter(_ name: String) -> String? { parameters[name]?.first }
}

/// A component of an iCalendar file (VCALENDAR, VEVENT, VTIMEZONE, VALARM ...) with its
/// properties and the components nested in it.
public struct CalendarComponent: Sendable, Equatable {
    /// The component name in upper case.
    public let name: String
    /// The physical line of its BEGIN.
    public let line: Int
    public fileprivate(set) var properties: [ContentLine] = []
    public fileprivate(set) var components: [CalendarComponent] = []
    /// The lines inside it, not in a nested component, that hold no content line this reader can use
    /// (a folded line that lost its leading space, a line that is not UTF-8): skipped, each with the
    /// lines folded onto it.
    public fileprivate(set) var unreadableLines: [ICalendarSyntaxError] = []

    /// The first property with this (upper-case) name.
    public func property(_ name: String) -> ContentLine? { properties.first { $0.name == name } }
}

/// Reads the structure of an iCalendar file: UTF-8 text (a BOM is skipped; UTF-16 with a byte order
/// mark, as Outlook saves "Unicode" calendars, is transcoded first), lines ending in CRLF
/// or LF, folded lines joined (a line starting with a space or a tab continues the one before, even
/// inside a UTF-8 sequence), content lines split into name, parameters and value, and BEGIN/END
/// nesting checked. Lenient as a calendar reader should be, it makes a line inside a component that
/// cannot be read that component's problem (`unreadableLines`), not the file's: only a broken
/// nesting, a line outside every VCALENDAR or a NUL byte stops the file. It knows no property's
/// meaning; `ICalendarFile` reads the events.
public enum ICalendarReader {
    /// Every top-level component (a file normally holds one VCALENDAR).
    public static func components(of bytes: [UInt8]) throws(ICalendarSyntaxError) -> [CalendarComponent] {
        var stack: [CalendarComponent] = []
        var finished: [CalendarComponent] = []
        for read in try contentLines(of: try utf8Text(of: bytes)) {
            let line: ContentLine
            switch read {
            case .success(let content):
                line = content
            case .failure(let unreadable):
                guard !stack.isEmpty else { throw unreadable }
                stack[stack.count - 1].unreadableLines.append(unreadable)
                continue
            }
            switch line.name {
            case "BEGIN":
                stack.append(CalendarComponent(name: line.value.uppercased(), line: line.line))
            case "END":
                guard let open = stack.popLast() else {
                    throw ICalendarSyntaxError(line: line.line, message: "END:\(line.value) without a BEGIN")
                }
                guard open.name == line.value.uppercased() else {
                    throw ICalendarSyntaxError(line: line.line,
                                               message: "END:\(line.value) closes BEGIN:\(open.name) of line \(open.line)")
                }
                if stack.isEmpty {
                    guard open.name == "VCALENDAR" else {
                        throw ICalendarSyntaxError(line: open.line, message: "BEGIN:\(open.name) outside BEGIN:VCALENDAR")
                    }
                    finished.append(open)
                } else {
                    stack[stack.count - 1].components.append(open)
                }
            default:
                guard !stack.isEmpty else {
                    throw ICalendarSyntaxError(line: line.line, message: finished.isEmpty
                        ? "the file does not start with BEGIN:VCALENDAR: it is not an iCalendar file"
                        : "\(line.name) after END:VCALENDAR")
                }
                stack[stack.count - 1].properties.append(line)
            }
        }
        if let open = stack.last {
            throw ICalendarSyntaxError(line: open.line, message: "BEGIN:\(open.name) is never closed by END:\(open.name)")
        }
        guard !finished.isEmpty else {
            throw ICalendarSyntaxError(line: 1, message: "the file holds no BEGIN:VCALENDAR: it is not an iCalendar file")
        }
        return finished
    }

    /// Whether the bytes look like an iCalendar file: `BEGIN:VCALENDAR` first, after a BOM and blank
    /// lines, in UTF-8 or UTF-16.
    public static func looksLikeICalendar(_ bytes: [UInt8]) -> Bool {
        let head = Array(bytes.prefix(4_096))  // enough for a BOM, blank lines and the first line
        let utf8 = utf16CodeUnits(of: head).map { Array(String(decoding: $0.units, as: UTF16.self).utf8) } ?? head
        let text = utf8.dropFirst(utf8.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
            .drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        let expected = "BEGIN:VCALENDAR"
        return String(decoding: text.prefix(expected.utf8.count), as: UTF8.self).uppercased() == expected
    }

    /// The bytes of a UTF-16 file (one that starts with a byte order mark, little or big endian) as
    /// UTF-8, line for line; any other file's bytes as they are.
    static func utf8Text(of bytes: [UInt8]) throws(ICalendarSyntaxError) -> [UInt8] {
        guard let (units, isComplete) = utf16CodeUnits(of: bytes) else { return bytes }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(units.count)
        let broken = transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) {
            utf8.append($0)
        }
        guard !broken && isComplete else {
            let message = "the file starts with a UTF-16 byte order mark, and this line is not UTF-16 text"
            throw ICalendarSyntaxError(line: utf8.count { $0 == 0x0A } + 1, message: message)
        }
        return utf8
    }

    /// The code units after a UTF-16 byte order mark, and whether the bytes held a whole number of
    /// them; nil without a byte order mark.
    private static func utf16CodeUnits(of bytes: [UInt8]) -> (units: [UInt16], isComplete: Bool)? {
        let bigEndian: Bool
        if bytes.starts(with: [0xFF, 0xFE]) {
            bigEndian = false
        } else if bytes.starts(with: [0xFE, 0xFF]) {
            bigEndian = true
        } else {
            return nil
        }
        let units = stride(from: 2, to: bytes.count - 1, by: 2).map { index in
            let (first, second) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
            return bigEndian ? first << 8 | second : second << 8 | first
        }
        return (units, bytes.count % 2 == 0)
    }

    /// The unfolded content lines, each with its first physical line, or why it cannot be read; empty
    /// lines are skipped. Throws only for a NUL byte: the file is no text.
    static func contentLines(of bytes: [UInt8]) throws(ICalendarSyntaxError) -> [Result<ContentLine, ICalendarSyntaxError>] {
        var lines: [Result<ContentLine, ICalendarSyntaxError>] = []
        var pending: [UInt8] = []
        var pendingLine = 0
        var physical = 0
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func flush() {
            if !pending.isEmpty {
                do {
                    lines.append(.success(try parse(pending, line: pendingLine)))
                } catch {
                    lines.append(.failure(error))
                }
            }
            pending.removeAll(keepingCapacity: true)
        }
        while start < bytes.count {
            physical += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            var text = bytes[start..<end]
            if text.last == 0x0D { text = text.dropLast() }
            if let nul = text.firstIndex(of: 0) {
                throw ICalendarSyntaxError(line: physical, message: "a NUL byte at byte \(nul - start + 1): not a text file")
            }
            if let first = text.first, first == 0x20 || first == 0x09, !pending.isEmpty {
                pending.append(contentsOf: text.dropFirst())
            } else {
                flush()
                pending.append(contentsOf: text)
                pendingLine = physical
            }
            start = end + 1
        }
        flush()
        return lines
    }

    /// Splits one unfolded content line into name, parameters and value.
    static func parse(_ bytes: [UInt8], line: Int) throws(ICalendarSyntaxError) -> ContentLine {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ICalendarSyntaxError(line: line, message: "not valid UTF-8 text")
        }
        var scalars = text.unicodeScalars[...]
        func fail(_ message: String) -> ICalendarSyntaxError { ICalendarSyntaxError(line: line, message: message) }
        let name = String(String.UnicodeScalarView(scalars.prefix { $0 != ";" && $0 != ":" })).uppercased()
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && (isLetterOrDigit($0) || $0 == "-") }) else {
            throw fail("\"\(text.prefix(40))\" is not a content line (NAME:value)")
        }
        scalars = scalars.dropFirst(name.unicodeScalars.count)
        var parameters: [String: [String]] = [:]
        while scalars.first == ";" {
            scalars = scalars.dropFirst()
            let parameter = String(String.UnicodeScalarView(scalars.prefix { $0 != "=" && $0 != ":" && $0 != ";" })).uppercased()
            scalars = scalars.dropFirst(parameter.unicodeScalars.count)
            guard !parameter.isEmpty, scalars.first == "=" else { throw fail("parameter \"\(parameter)\" of \(name) has no value") }
            var values: [String] = []
            repeat {
                scalars = scalars.dropFirst()
                if scalars.first == "\"" {
                    guard let close = scalars.dropFirst().firstIndex(of: "\"") else {
                        throw fail("a quoted value of parameter \(parameter) of \(name) is never closed")
                    }
                    values.append(unescapeParameter(String(String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<close]))))
                    scalars = scalars[scalars.index(after: close)...]
                } else {
                    let value = scalars.prefix { $0 != "," && $0 != ";" && $0 != ":" }
                    values.append(unescapeParameter(String(String.UnicodeScalarView(value))))
                    scalars = scalars.dropFirst(value.count)
                }
            } while scalars.first == ","
            parameters[parameter, default: []] += values
        }
        guard scalars.first == ":" else { throw fail("\(name) has no ':' before its value") }
        return ContentLine(name: name, parameters: parameters, value: String(String.UnicodeScalarView(scalars.dropFirst())),
                           line: line)
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// A parameter value with its caret escapes decoded: `^n` (a line break), `^^` and `^'` (a double quote).
    private static func unescapeParameter(_ value: String) -> String {
        guard value.contains("^") else { return value }
        var out = ""
        var caret = false
        for character in value {
            if caret {
                switch character {
                case "n": out.append("\n")
                case "'": out.append("\"")
                case "^": out.append("^")
                default: out += "^" + String(character)
                }
                caret = false
            } else if character == "^" {
                caret = true
            } else {
                out.append(character)
            }
        }
        return caret ? out + "^" : out
    }
}
