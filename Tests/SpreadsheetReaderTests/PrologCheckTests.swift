import Foundation
@testable import SpreadsheetReader
import Testing

/// A part's prolog is read for a document type declaration however its bytes are split.
@Suite("a part's prolog: no document type declaration")
struct PrologCheckTests {
    static let cases: [(String, PrologCheck.Verdict)] = [
        (#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\#r\#n<worksheet xmlns="x"/>"#, .clean),
        (#"<?xml version="1.0"?><!-- <!DOCTYPE in a comment> <a --><worksheet/>"#, .clean),
        (#"<?xml version="1.0"?><!DOCTYPE worksheet [<!ENTITY x SYSTEM "file:///etc/passwd">]><worksheet/>"#,
         .declaresDocumentType),
        (#"<!-- a comment --> <?pi x?> <!DOCTYPE w><w/>"#, .declaresDocumentType),
        ("<worksheet><!DOCTYPE after the root is not a prolog/></worksheet>", .clean),
    ]

    @Test("UTF-16, where an ASCII scan would miss a declaration, is refused")
    func utf16() {
        let declaration = #"<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE w [<!ENTITY x "y">]><w/>"#
        let littleEndian = [UInt8]([0xFF, 0xFE]) + declaration.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(PrologCheck.check(Data(littleEndian)) == .notUTF8)
        let withoutMark = declaration.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(PrologCheck.check(Data(withoutMark)) == .notUTF8)
        #expect(PrologCheck.Verdict.notUTF8.refusal?.contains("not UTF-8") == true)
    }

    @Test("whole, and split at every byte", arguments: cases)
    func verdicts(_ text: String, _ expected: PrologCheck.Verdict) {
        #expect(PrologCheck.check(Data(text.utf8)) == expected)
        let bytes = Array(text.utf8)
        for split in 1..<bytes.count {
            var check = PrologCheck()
            let first = check.feed(bytes[..<split])
            let verdict = first == .undecided ? check.feed(bytes[split...]) : first
            #expect(verdict == expected, "split at \(split)")
        }
    }

    @Test("a prolog longer than any spreadsheet program writes is refused, not read to its end")
    func endlessProlog() {
        var check = PrologCheck()
        let comment = Array("<!--".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        #expect(check.feed(comment) == .tooLong)
        #expect(PrologCheck.Verdict.tooLong.refusal?.contains("before its first element") == true)
    }
}
