/// Proleptic Gregorian dates as whole days counted from 1970-01-01, and back: integer arithmetic only
/// (no time zone, no Foundation), for calendar files, spreadsheet serial dates and mail headers alike.
public enum CivilDay {
    /// Days from 1970-01-01 to `year-month-day` (negative before it).
    public static func number(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Seconds counted from the start of day 0 as the day they fall in and the second of that day
    /// (0 to 86,399), before day 0 too.
    public static func day(ofSecond second: Int) -> (day: Int, second: Int) {
        let day = second >= 0 ? second / 86_400 : (second - 86_399) / 86_400
        return (day, second - day * 86_400)
    }

    /// The day of the week of a day counted from 1970-01-01: 0 for Monday to 6 for Sunday (day 0 was
    /// a Thursday).
    public static func weekday(_ number: Int) -> Int {
        ((number % 7) + 7 + 3) % 7
    }

    /// The date of a day counted from 1970-01-01.
    public static func date(_ number: Int) -> (year: Int, month: Int, day: Int) {
        let z = number + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
