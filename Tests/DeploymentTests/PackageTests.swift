import Foundation
import Testing

/// The Debian packages `scripts/package` built (docs/deployment.md, "Packages"), read with `dpkg-deb`:
/// each role's files and not the other's, together exactly what `scripts/install` installs, the
/// conffiles, `Depends:`, and what the maintainer scripts do. scripts/test builds the packages and
/// then runs this suite with AIDEN_PACKAGES_DIR set.
@Suite(.enabled(if: BuiltPackage.directory != nil, "AIDEN_PACKAGES_DIR unset: run scripts/package first"))
struct PackageTests {
    static let board: Set<String> = [
        "usr/bin/aiden-board",
        "usr/bin/aidenctl",
        "lib/systemd/system/aiden-board.service",
        "lib/systemd/system/aiden-board.socket",
        "lib/systemd/system/bluetooth.service.d/aidenbridge-board.conf",
        "lib/systemd/system/aiden-gadget.service",
        "lib/systemd/system/aiden-udc.target",
        "lib/udev/rules.d/70-aiden-gadget.rules",
        "lib/systemd/network/70-aiden-gadget.link",
        "lib/systemd/network/70-aiden-gadget.network",
        "etc/aiden/board.toml",
        "usr/share/man/man8/aiden-board.8.gz",
        "usr/share/man/man1/aidenctl.1.gz",
        "usr/share/bash-completion/completions/aidenctl",
        "usr/share/zsh/vendor-completions/_aidenctl",
        "usr/share/fish/vendor_completions.d/aidenctl.fish",
        "usr/share/aidenbridge/skills/aidenbridge/SKILL.md",
        "usr/share/doc/aidenbridge-board/copyright",
        "usr/share/doc/aidenbridge-board/changelog.gz",
        "usr/share/lintian/overrides/aidenbridge-board",
    ]
    static let phone: Set<String> = [
        "usr/bin/aiden-phone",
        "lib/systemd/system/aiden-phone.service",
        "usr/lib/systemd/user/aiden-phone.service",
        "lib/udev/rules.d/70-aiden-phone.rules",
        "lib/systemd/network/70-aiden-board.link",
        "lib/systemd/network/70-aiden-board.network",
        "etc/aiden/phone.toml",
        "usr/share/man/man1/aiden-phone.1.gz",
        "usr/share/applications/aiden-phone.desktop",
        "usr/share/doc/aidenbridge-phone/copyright",
        "usr/share/doc/aidenbridge-phone/changelog.gz",
        "usr/share/lintian/overrides/aidenbridge-phone",
    ]
    /// Besides the documentation, which `documentation` lists from the checkout.
    static let common: Set<String> = [
        "usr/lib/sysusers.d/aiden.conf",
        "usr/share/man/man5/aiden.toml.5.gz",
        "usr/share/doc/aidenbridge-common/copyright",
        "usr/share/doc/aidenbridge-common/changelog.gz",
    ]

    /// README.md, docs/ and the two READMEs of the installed directories, in the repository's layout.
    static func documentation() throws -> Set<String> {
        var files: Set<String> = ["README.md", "systemd/README.md", "udev/README.md"]
        let walker = try #require(FileManager.default.enumerator(atPath: "\(Repository.root)/docs"))
        for case let relative as String in walker {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(Repository.root)/docs/\(relative)", isDirectory: &isDirectory)
            if !isDirectory.boolValue { files.insert("docs/\(relative)") }
        }
        return Set(files.map { "usr/share/doc/aidenbridge/\($0)" })
    }

    @Test func eachRoleHoldsItsFilesAndNotTheOthers() throws {
        let board = try BuiltPackage("aidenbridge-board")
        let phone = try BuiltPackage("aidenbridge-phone")
        let common = try BuiltPackage("aidenbridge-common")
        #expect(board.files == Self.board, "\(board.files.symmetricDifference(Self.board).sorted())")
        #expect(phone.files == Self.phone, "\(phone.files.symmetricDifference(Self.phone).sorted())")
        let expectedCommon = Self.common.union(try Self.documentation())
        #expect(common.files == expectedCommon, "\(common.files.symmetricDifference(expectedCommon).sorted())")
        #expect(board.files.isDisjoint(with: phone.files))
        #expect(board.files.isDisjoint(with: common.files))
        #expect(phone.files.isDisjoint(with: common.files))
    }

    /// The packages together and `PREFIX=/usr scripts/install` put the same files in place, with the
    /// same contents: Debian 12's /lib is /usr/lib, the packages' man pages are compressed, their
    /// binaries stripped, and each package has its own copyright, changelog and lintian overrides.
    @Test func togetherTheyInstallWhatScriptsInstallDoes() throws {
        let unpacked = try Scratch("aiden-unpacked")
        for name in ["aidenbridge-board", "aidenbridge-phone", "aidenbridge-common"] {
            try BuiltPackage(name).extract(into: unpacked.path)
        }
        let fromPackages = try Self.files(under: unpacked.path).filter {
            !$0.key.hasPrefix("usr/share/doc/aidenbridge-") && !$0.key.hasPrefix("usr/share/lintian/")
        }
        let staged = try StagedInstall()
        let fromInstall = try Self.files(under: staged.root)
        #expect(
            Set(fromPackages.keys) == Set(fromInstall.keys),
            "\(Set(fromPackages.keys).symmetricDifference(fromInstall.keys).sorted())")
        for (path, installed) in fromInstall where !path.hasPrefix("usr/bin/") {
            #expect(fromPackages[path] == installed, "\(path) differs between the packages and scripts/install")
        }
    }

    /// Every file under `root` by its path with /usr/lib for /lib, and its contents (a man page's
    /// uncompressed, under its uncompressed name).
    static func files(under root: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: root))
        for case let relative as String in walker {
            let path = "\(root)/\(relative)"
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            var name = relative.hasPrefix("lib/") ? "usr/\(relative)" : relative
            var contents = try Data(contentsOf: URL(fileURLWithPath: path))
            if name.hasPrefix("usr/share/man/"), name.hasSuffix(".gz") {
                let gunzip = try run("/bin/gzip", ["--decompress", "--stdout", path])
                guard gunzip.status == 0 else { throw DeploymentTestError("gzip -d \(relative): \(gunzip.error)") }
                contents = Data(gunzip.output.utf8)
                name.removeLast(3)
            }
            result[name] = contents
        }
        return result
    }

    @Test func conffilesAreTheConfigurationFiles() throws {
        #expect(try BuiltPackage("aidenbridge-board").controlFile("conffiles") == "/etc/aiden/board.toml\n")
        #expect(try BuiltPackage("aidenbridge-phone").controlFile("conffiles") == "/etc/aiden/phone.toml\n")
        #expect(try BuiltPackage("aidenbridge-common").controlFile("conffiles") == nil)
    }

    @Test func dependsNamesBluezAndTheSharedLibraries() throws {
        let version = try Changelog.version()
        let architecture = try #require(
            try run("/usr/bin/dpkg", ["--print-architecture"]).output.split(separator: "\n").first.map(String.init))
        let board = try BuiltPackage("aidenbridge-board")
        let phone = try BuiltPackage("aidenbridge-phone")
        let common = try BuiltPackage("aidenbridge-common")
        for package in [board, phone] {
            let depends = try package.dependencies()
            #expect(
                depends.isSuperset(of: [
                    "bluez", "systemd", "udev", "aidenbridge-common", "libc6", "libdbus-1-3",
                ]),
                "\(package.name): \(depends.sorted())")
            // Both speak HTTP with the project's own client (libcurl and its TLS stack before).
            #expect(!depends.contains("libcurl4"), "\(package.name): \(depends.sorted())")
            // The Swift runtime is linked in (--static-swift-stdlib): no Swift shared library to depend on.
            #expect(try !package.field("Depends").contains("swift"))
            #expect(try package.field("Depends").contains("aidenbridge-common (= \(version))"))
            #expect(try package.field("Architecture") == architecture)
            #expect(try package.field("Version") == version)
        }
        // The board reads the adapter (libbluetooth) and tells systemd (libsystemd); it serves HTTP with its own
        // server, which links no library (libmicrohttpd before).
        #expect(try board.dependencies().isSuperset(of: ["libbluetooth3", "libsystemd0"]))
        #expect(try !board.dependencies().contains("libmicrohttpd12"))
        // Only the board links libbluetooth (README, "Licences").
        #expect(try !phone.dependencies().contains("libbluetooth3"))
        #expect(try common.field("Architecture") == "all")
        #expect(try common.field("Version") == version)
    }

    /// Installing creates the user and enables nothing; removing stops the units; purging also removes
    /// the state systemd made for the daemons and the record of what was enabled.
    @Test func maintainerScriptsCreateTheUserEnableNothingAndPurgeTheState() throws {
        let common = try BuiltPackage("aidenbridge-common")
        let sysusers = try #require(try common.controlFile("postinst"))
        #expect(sysusers.contains("systemd-sysusers ${DPKG_ROOT:+--root=\"$DPKG_ROOT\"} aiden.conf"))

        let roles = [
            (
                "aidenbridge-board", ["aiden-board.service", "aiden-board.socket", "aiden-gadget.service"],
                "/var/lib/aiden-board"
            ),
            ("aidenbridge-phone", ["aiden-phone.service"], "/var/lib/aiden-phone"),
        ]
        for (name, units, state) in roles {
            let package = try BuiltPackage(name)
            let postinst = try #require(try package.controlFile("postinst"), "\(name) has a postinst")
            let prerm = try #require(try package.controlFile("prerm"), "\(name) has a prerm")
            let postrm = try #require(try package.controlFile("postrm"), "\(name) has a postrm")
            // debhelper's "enable on first installation" snippet is not there; each unit is only
            // re-enabled on upgrade if the admin had enabled it.
            #expect(!postinst.contains("was-enabled defaults to true"), "\(name): postinst enables a unit")
            for unit in units {
                #expect(postinst.contains("deb-systemd-helper debian-installed '\(unit)'"), "\(name): \(unit)")
                #expect(prerm.contains("deb-systemd-invoke stop") && prerm.contains("'\(unit)'"), "\(name): \(unit)")
                #expect(postrm.contains("deb-systemd-helper purge") && postrm.contains("'\(unit)'"), "\(name): \(unit)")
            }
            #expect(postrm.contains("if [ \"$1\" = \"purge\" ]; then\n    rm -rf \(state)\nfi"), "\(name)")
            // The installation starts nothing; after an upgrade a daemon that runs runs the new binary
            // (try-restart: one that does not run stays stopped).
            #expect(!postinst.contains("deb-systemd-invoke start"), "\(name): postinst starts a unit")
            #expect(!postinst.contains("_dh_action"), "\(name): postinst starts a unit on installation")
            #expect(postinst.contains("deb-systemd-invoke try-restart"), "\(name)")
        }
        // The gadget and the socket are never started nor restarted by the maintainer scripts (a restart
        // would unplug the phone, or drop the held port), and stopped only on removal.
        let board = try BuiltPackage("aidenbridge-board")
        let units = "'aiden-board.socket' 'aiden-gadget.service' 'aiden-udc.target'"
        let boardPostinst = try #require(try board.controlFile("postinst"))
        #expect(!boardPostinst.contains("try-restart \(units)"))
        #expect(boardPostinst.contains("deb-systemd-invoke try-restart 'aiden-board.service'"))
        // bluetoothd reads the board's drop-in (LE-only) as it starts: installing restarts one that runs without
        // it, removing one that runs with it, and neither touches one already as it should be (docs/security.md).
        let runsWithDropIn =
            "tr '\\0' ' ' < \"/proc/$pid/cmdline\" | grep -q '/run/aidenbridge-bluetooth/main.conf'; then\n"
        let restart = "            deb-systemd-invoke try-restart bluetooth.service >/dev/null || true\n"
        #expect(boardPostinst.contains("if ! " + runsWithDropIn + restart))
        #expect(try #require(try board.controlFile("postrm")).contains("if " + runsWithDropIn + restart))
        // Removal stops the daemon, then the socket and the gadget (debian/aidenbridge-board.prerm).
        #expect(
            try #require(try board.controlFile("prerm")).contains(
                "[ \"$1\" = remove ] && [ -d /run/systemd/system ] ; then\n"
                    + "\tdeb-systemd-invoke stop 'aiden-board.service' >/dev/null || true\n"
                    + "\tdeb-systemd-invoke stop \(units)"))
    }
}

/// The version a release gets: the first line of debian/changelog, "aidenbridge (VERSION) …".
enum Changelog {
    static func version() throws -> String {
        let first = try Repository.text("debian/changelog").prefix { $0 != "\n" }
        guard first.hasPrefix("aidenbridge ("), let end = first.firstIndex(of: ")") else {
            throw DeploymentTestError("debian/changelog does not start with \"aidenbridge (VERSION)\": \(first)")
        }
        return String(first[first.index(first.startIndex, offsetBy: "aidenbridge (".count)..<end])
    }
}

/// One version for the packages and the programs (docs/deployment.md, "Packages").
@Suite struct PackageVersionTests {
    @Test func theProgramsReportTheChangelogsVersion() throws {
        let version = try Changelog.version()
        let products = try #require(Repository.productsDirectory)
        for program in ["aiden-board", "aiden-phone", "aidenctl"] {
            let result = try run("\(products)/\(program)", ["--version"])
            #expect(result.status == 0)
            #expect(result.output == "\(program) \(version)\n", "\(program) --version")
        }
    }
}
