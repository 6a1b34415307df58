/// Where to connect. Showing a connection string without its password is `Credentials.masked`.
public enum ConnectionString {
    /// `--database-url`, else `DATABASE_URL`, else the empty string, which makes libpq use its own
    /// PG* variables, service file and ~/.pgpass.
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let url = environment["DATABASE_URL"], !url.isEmpty { return url }
        return ""
    }
}
