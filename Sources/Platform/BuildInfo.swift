/// The version all three programs report (`--version`, `/status`).
package enum BuildInfo {
    package static let version = "0.1.0"
}
