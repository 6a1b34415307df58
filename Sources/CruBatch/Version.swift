/// The version `crubatch --version` prints.
public enum CruBatchVersion {
    public static let current = "0.1.0"
}
