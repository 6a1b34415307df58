@testable import CruBatch
import CruBatchTestSupport
import CSVStream
import Foundation
import Testing

/// The cell normalisation of docs/guide/file-formats.md, value by value.
@Suite("cell normalisation")
struct NormalizerTests {
    private func value(_ text: String, _ type: CellType) -> String? {
        (try? CellNormalizer.read(text, as: type))?.value
    }

    private func problem(_ text: String, _ type: CellType) -> DiagnosticCode? {
        do throws(CellProblem) {
            _ = try CellNormalizer.read(text, as: type)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("phones become E.164", arguments: [
        ("(805) 555-0134", "+18055550134"), ("805-555-0134", "+18055550134"), ("805.555.0134", "+18055550134"),
        ("+1 805 555 0134", "+18055550134"), ("1-805-555-0134", "+18055550134"), (" 8055550134 ", "+18055550134"),
        ("805-555-0134 x12", "+18055550134;ext=12"), ("805-555-0134 ext. 7", "+18055550134;ext=7"),
        ("(805) 555-0134 extension 301", "+18055550134;ext=301"), ("+44 20 7946 0958", "+442079460958"),
    ])
    func phones(input: String, expected: String) {
        #expect(value(input, .phone) == expected)
    }

    @Test("bad phones are invalid-phone", arguments: ["555-12", "805-555-01345", "(105) 555-0134", "805-155-0134",
                                                      "call me", "805-555-0134 x", "+0 123 4567 890", "８０５５５５０１３４"])
    func badPhones(input: String) {
        #expect(problem(input, .phone) == .invalidPhone)
    }

    @Test("emails are lower-cased and checked")
    func emails() {
        #expect(value(" Ana.Lopez@CalPoly.EDU ", .email) == "ana.lopez@calpoly.edu")
        #expect(value("zoë@example.edu", .email) == "zoë@example.edu")
        for bad in ["jane.doe@@calpoly", "jane", "@calpoly.edu", "a@b", "a@.b.c", "a@b.c.", "a@b..c", "a b@c.d", "a@b.c;d@e.f"] {
            #expect(problem(bad, .email) == .invalidEmail, "\(bad)")
        }
    }

    @Test("days, times, booleans, sexes and school years")
    func choices() {
        #expect(value("tue", .day) == "Tuesday")
        #expect(value("THURS", .day) == "Thursday")
        #expect(problem("Funday", .day) == .invalidChoice)
        #expect(value("Weds.", .day) == "Wednesday")  // one spelling table with availability answers
        #expect(value("7pm", .time) == "19:00")
        #expect(value("7:30 PM", .time) == "19:30")
        #expect(value("12am", .time) == "00:00")
        #expect(value("19:00:00", .time) == "19:00")
        #expect(problem("25:00", .time) == .typeError)
        #expect(value("Y", .bool) == "true")
        #expect(value("0", .bool) == "false")
        #expect(value("F", .personSex) == "female")
        #expect(value("1", .personSex) == "male")
        #expect(value("9", .personSex) == "not-applicable")
        #expect(value("Sophomore", .schoolYear) == "2")
        #expect(value("5", .schoolYear) == "5")
        #expect(value("graduate", .schoolYear) == "5")
        #expect(problem("9", .schoolYear) == .outOfRange)
        #expect(value("Women", .groupSex) == "women")
        #expect(value("Freshman", .audience) == "freshmen")
    }

    @Test("text is trimmed and put in NFC; codes lower-cased; lists de-duplicated")
    func textCodesLists() {
        #expect(value("  Zoe\u{0308}  ", .text) == "Zo\u{00EB}")
        #expect(value("\u{00A0}José\u{00A0}", .text) == "José")
        #expect(value("Cru-CalPoly", .code) == "cru-calpoly")
        #expect(problem("cru calpoly", .code) == .typeError)
        #expect(value("cru-calpoly; EPIC-calpoly;cru-calpoly;", .list(.code)) == "cru-calpoly;epic-calpoly")
        #expect(value("   ", .text) == nil)
    }

    /// Accented Latin and Vietnamese letters skip Foundation; whatever path a cell takes, it must
    /// come out as Foundation's trimming and NFC would give it.
    @Test("the fast path for accented letters trims and composes as Foundation does", arguments: [
        "Thảo", " Nguyễn ", "Łukasz", "Ó Súilleabháin", "\tÉlodie\n", "Søren\u{00A0}", "\u{0085}Ana", "\u{00A0}",
        "e\u{0301}", "Ñ\u{0301}", "ẫ\u{0323}", "A\u{030A}ngstr\u{00F6}m", "\u{1E9B}\u{0323}", "\u{2126}hm", "ĳssel ǅ",
        "\u{3000}Ana\u{3000}", "Ana\u{2028}", "ʻOkina ˈstress", "\u{00C5} \u{212B}", "Zoë\u{1680}", "Łódź\u{0300}",
    ])
    func accentedText(input: String) {
        let foundation = input.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        #expect(CellNormalizer.trimmedNFC(input).unicodeScalars.elementsEqual(foundation.unicodeScalars))
    }

    @Test("list cells split on ; , and line breaks, lists of text on ; and line breaks only")
    func listSeparators() {
        #expect(value("a-1;b-2\r\nc-3,d-4\ne-5\r", .list(.code)) == "a-1;b-2;c-3;d-4;e-5")
        #expect(value("Bible, prayer;Zoë, Ana\r\nlast", .list(.text)) == "Bible, prayer;Zoë, Ana;last")
        #expect(value("Zoë;Ana,Åsa\r\nLê", .list(.reference)) == "Zoë;Ana;Åsa;Lê")
    }
}
