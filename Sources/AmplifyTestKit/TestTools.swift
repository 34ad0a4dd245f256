import Foundation

/// Where the tests' tools are: this package's root, and the Python of the test-tools venv
/// (`scripts/install-test-tools.sh`: moto, the stand-ins' libraries, Selenium).
public enum TestTools {
    /// This package's root folder.
    public static var packageRoot: URL { MotoServer.packageRoot }

    /// `$AMPLIFY_MOTO_PYTHON`, or the venv's python (the venv is made when missing).
    /// - Throws: ``MotoServerError`` when `scripts/install-test-tools.sh` fails.
    public static func python() throws -> URL { try MotoServer.pythonExecutable() }
}
