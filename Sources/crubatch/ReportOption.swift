import ArgumentParser

/// `--report FILE.html`, for the commands that read a file staff fix or decide on.
struct ReportOption: ParsableArguments {
    @Option(help: ArgumentHelp("Also write the run as one self-contained HTML page: summary, problems by code, the bad rows with their cells marked, the changes.",
                               valueName: "FILE.html"))
    var report: String?
}
