import Foundation

/// auto_explain as the plan tests use it: every statement's plan, nested ones included, with the
/// rows each step read, sent to the client as a warning (psql and libpq print those on standard
/// error); and the sum of what those plans threw away.
public enum AutoExplain {
    /// The settings as a connection's options (`-c name=value ...`: libpq's `options`, or
    /// PGOPTIONS) for plans of statements that run longer than `milliseconds` (0: every one).
    public static func options(over milliseconds: Int) -> String {
        ["session_preload_libraries=auto_explain", "auto_explain.log_min_duration=\(milliseconds)",
         "auto_explain.log_analyze=on", "auto_explain.log_timing=off",
         "auto_explain.log_nested_statements=on", "auto_explain.log_level=warning"]
            .map { "-c \($0)" }.joined(separator: " ")
    }

    /// The rows the plans reported in `output` removed by a filter or a join filter, foreign-key
    /// checks (`SELECT 1 FROM ONLY ...`, PostgreSQL's own lookup per row) left out; nil when it
    /// reports no plan.
    public static func rowsDiscarded(reportedIn output: String) -> Int? {
        let plans = output.components(separatedBy: "WARNING:  duration:").dropFirst()
        guard !plans.isEmpty else { return nil }
        let removed = /Rows Removed by (?:Join )?Filter: (\d+)/
        return plans.filter { !$0.contains("FROM ONLY") }.reduce(0) { total, plan in
            total + plan.matches(of: removed).reduce(0) { $0 + Int($1.output.1)! }
        }
    }
}
