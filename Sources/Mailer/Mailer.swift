/// Sends email over SMTP with libcurl.
public enum Mailer {}
