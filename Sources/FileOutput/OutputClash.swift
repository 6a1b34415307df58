import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a command's outputs would overwrite one of its inputs or each other: `--report v.csv`
/// while reading v.csv, `--rejects x.xlsx --report x.xlsx`. Files are compared as the system finds
/// them (device and inode, through links and other spellings of the path), and a file not yet
/// there by its real folder and name.
public enum OutputClash {
    /// What is wrong with `outputs` (each with the option that names it), for people; nil when each
    /// output is a file of its own. Standard output (`-`) clashes with nothing.
    public static func find(outputs: [(option: String, path: String)], inputs: [String]) -> String? {
        let inputFiles = inputs.map { ($0, FileIdentity($0)) }
        var earlier: [(option: String, path: String, identity: FileIdentity)] = []
        for (option, path) in outputs where path != "-" {
            let identity = FileIdentity(path)
            if let input = inputFiles.first(where: { $0.1 == identity }) {
                return "\(option) \(path) is \(input.0 == path ? "the input file" : "the input file \(input.0)"): "
                    + "writing it would replace what is read; name another file"
            }
            if let other = earlier.first(where: { $0.identity == identity }) {
                return "\(option) \(path) and \(other.option) \(other.path) are one file: each needs its own"
            }
            earlier.append((option, path, identity))
        }
        return nil
    }
}

/// A file as the system knows it: its device and inode when it exists, else its real folder and name.
private enum FileIdentity: Equatable {
    case file(device: UInt64, inode: UInt64)
    case name(String)

    init(_ path: String) {
        var info = stat()
        if stat(path, &info) == 0 {
            self = .file(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            return
        }
        let (folder, name) = splitPath(path)
        guard let real = realpath(folder, nil) else {
            self = .name(path)
            return
        }
        defer { free(real) }
        self = .name(String(cString: real) + "/" + name)
    }
}
