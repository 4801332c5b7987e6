import Foundation
import Testing

/// `DESTDIR=… PREFIX=… BIN_DIR=… scripts/install`: exactly these files, with these modes.
@Suite struct InstallTests {
    static let expectedFixedTree: [String: String] = [
        "etc": "drwxr-xr-x",
        "etc/aiden": "drwxr-xr-x",
        "etc/aiden/board.toml": "-rw-r--r--",
        "etc/aiden/phone.toml": "-rw-r--r--",
        "usr": "drwxr-xr-x",
        "usr/bin": "drwxr-xr-x",
        "usr/bin/aiden-board": "-rwxr-xr-x",
        "usr/bin/aiden-phone": "-rwxr-xr-x",
        "usr/bin/aidenctl": "-rwxr-xr-x",
        "usr/lib": "drwxr-xr-x",
        "usr/lib/systemd": "drwxr-xr-x",
        "usr/lib/systemd/network": "drwxr-xr-x",
        "usr/lib/systemd/network/70-aiden-board.link": "-rw-r--r--",
        "usr/lib/systemd/network/70-aiden-board.network": "-rw-r--r--",
        "usr/lib/systemd/network/70-aiden-gadget.link": "-rw-r--r--",
        "usr/lib/systemd/network/70-aiden-gadget.network": "-rw-r--r--",
        "usr/lib/systemd/system": "drwxr-xr-x",
        "usr/lib/systemd/system/aiden-board.service": "-rw-r--r--",
        "usr/lib/systemd/system/aiden-board.socket": "-rw-r--r--",
        "usr/lib/systemd/system/bluetooth.service.d": "drwxr-xr-x",
        "usr/lib/systemd/system/bluetooth.service.d/aidenbridge-board.conf": "-rw-r--r--",
        "usr/lib/systemd/system/aiden-gadget.service": "-rw-r--r--",
        "usr/lib/systemd/system/aiden-phone.service": "-rw-r--r--",
        "usr/lib/systemd/system/aiden-udc.target": "-rw-r--r--",
        "usr/lib/systemd/user": "drwxr-xr-x",
        "usr/lib/systemd/user/aiden-phone.service": "-rw-r--r--",
        "usr/lib/sysusers.d": "drwxr-xr-x",
        "usr/lib/sysusers.d/aiden.conf": "-rw-r--r--",
        "usr/lib/udev": "drwxr-xr-x",
        "usr/lib/udev/rules.d": "drwxr-xr-x",
        "usr/lib/udev/rules.d/70-aiden-gadget.rules": "-rw-r--r--",
        "usr/lib/udev/rules.d/70-aiden-phone.rules": "-rw-r--r--",
        "usr/share": "drwxr-xr-x",
        "usr/share/doc": "drwxr-xr-x",
        "usr/share/doc/aidenbridge": "drwxr-xr-x",
        "usr/share/bash-completion": "drwxr-xr-x",
        "usr/share/bash-completion/completions": "drwxr-xr-x",
        "usr/share/bash-completion/completions/aidenctl": "-rw-r--r--",
        "usr/share/zsh": "drwxr-xr-x",
        "usr/share/zsh/vendor-completions": "drwxr-xr-x",
        "usr/share/zsh/vendor-completions/_aidenctl": "-rw-r--r--",
        "usr/share/fish": "drwxr-xr-x",
        "usr/share/fish/vendor_completions.d": "drwxr-xr-x",
        "usr/share/fish/vendor_completions.d/aidenctl.fish": "-rw-r--r--",
        "usr/share/applications": "drwxr-xr-x",
        "usr/share/applications/aiden-phone.desktop": "-rw-r--r--",
        "usr/share/aidenbridge": "drwxr-xr-x",
        "usr/share/aidenbridge/skills": "drwxr-xr-x",
        "usr/share/aidenbridge/skills/aidenbridge": "drwxr-xr-x",
        "usr/share/aidenbridge/skills/aidenbridge/SKILL.md": "-rw-r--r--",
    ]

    /// The man pages, installed when pandoc is there (scripts/packages.txt has it).
    static let manPages: [String: String] = [
        "usr/share/man": "drwxr-xr-x",
        "usr/share/man/man1": "drwxr-xr-x",
        "usr/share/man/man1/aiden-phone.1": "-rw-r--r--",
        "usr/share/man/man1/aidenctl.1": "-rw-r--r--",
        "usr/share/man/man5": "drwxr-xr-x",
        "usr/share/man/man5/aiden.toml.5": "-rw-r--r--",
        "usr/share/man/man8": "drwxr-xr-x",
        "usr/share/man/man8/aiden-board.8": "-rw-r--r--",
    ]

    /// The fixed files and the documentation, which is the checkout's README.md, docs/ and the
    /// READMEs of systemd/ and udev/, in the repository's layout.
    static func expectedTree() throws -> [String: String] {
        var tree = expectedFixedTree
        var documents = ["README.md", "systemd/README.md", "udev/README.md"]
        let walker = try #require(FileManager.default.enumerator(atPath: "\(Repository.root)/docs"))
        for case let relative as String in walker { documents.append("docs/\(relative)") }
        for document in documents {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(Repository.root)/\(document)", isDirectory: &isDirectory)
            tree["usr/share/doc/aidenbridge/\(document)"] = isDirectory.boolValue ? "drwxr-xr-x" : "-rw-r--r--"
        }
        for directory in ["docs", "systemd", "udev"] { tree["usr/share/doc/aidenbridge/\(directory)"] = "drwxr-xr-x" }
        return tree
    }

    /// Every path under `root` with `ls -l`-style type and permission bits.
    static func tree(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        let files = FileManager.default
        guard let walker = files.enumerator(atPath: root) else { throw DeploymentTestError("cannot list \(root)") }
        for case let relative as String in walker {
            var info = stat()
            guard lstat("\(root)/\(relative)", &info) == 0 else { throw DeploymentTestError("lstat \(relative)") }
            let type =
                switch info.st_mode & S_IFMT {
                case S_IFDIR: "d"
                case S_IFLNK: "l"
                default: "-"
                }
            let bits = (0..<9).map { bit in
                info.st_mode & (0o400 >> mode_t(bit)) != 0 ? Array("rwxrwxrwx")[bit] : "-"
            }
            result[relative] = type + String(bits)
        }
        return result
    }

    @Test func installsExactlyTheExpectedTree() throws {
        let staged = try StagedInstall()
        #expect(try Self.tree(staged.root) == Self.expectedTree().merging(Self.manPages) { $1 })
        #expect(staged.result.output.contains("installed under \(staged.root) with PREFIX=/usr"))
        #expect(!staged.result.output.contains("next, as root"), "no live-system hints for a staging root")
    }

    @Test func installedFilesAreTheCheckedInOnes() throws {
        let staged = try StagedInstall()
        let pairs = [
            ("udev/70-aiden-gadget.rules", "usr/lib/udev/rules.d/70-aiden-gadget.rules"),
            ("udev/70-aiden-phone.rules", "usr/lib/udev/rules.d/70-aiden-phone.rules"),
            ("systemd/network/70-aiden-gadget.network", "usr/lib/systemd/network/70-aiden-gadget.network"),
            ("systemd/sysusers.d/aiden.conf", "usr/lib/sysusers.d/aiden.conf"),
            ("systemd/aiden-board.service", "usr/lib/systemd/system/aiden-board.service"),
            ("systemd/aiden-board.socket", "usr/lib/systemd/system/aiden-board.socket"),
            (
                "systemd/bluetooth.service.d/aidenbridge-board.conf",
                "usr/lib/systemd/system/bluetooth.service.d/aidenbridge-board.conf"
            ),
            ("systemd/user/aiden-phone.service", "usr/lib/systemd/user/aiden-phone.service"),
            ("config/board.toml", "etc/aiden/board.toml"),
            ("config/phone.toml", "etc/aiden/phone.toml"),
            ("README.md", "usr/share/doc/aidenbridge/README.md"),
            ("docs/deployment.md", "usr/share/doc/aidenbridge/docs/deployment.md"),
            ("udev/README.md", "usr/share/doc/aidenbridge/udev/README.md"),
            ("skills/aidenbridge/SKILL.md", "usr/share/aidenbridge/skills/aidenbridge/SKILL.md"),
            ("desktop/aiden-phone.desktop", "usr/share/applications/aiden-phone.desktop"),
        ]
        for (source, installed) in pairs {
            #expect(
                try Repository.text(source) == String(contentsOfFile: staged.path(installed), encoding: .utf8),
                "\(installed)")
        }
        let products = try #require(Repository.productsDirectory)
        #expect(
            FileManager.default.contentsEqual(
                atPath: "\(products)/aiden-board",
                andPath: staged.path("usr/bin/aiden-board")))
    }

    @Test func anotherPrefixIsWrittenIntoTheUnits() throws {
        let staged = try StagedInstall(prefix: "/usr/local")
        let unit = try String(
            contentsOfFile: staged.path("usr/local/lib/systemd/system/aiden-gadget.service"),
            encoding: .utf8)
        let ini = INIFile(unit)
        #expect(ini.value("Service", "ExecStart") == "/usr/local/bin/aiden-board gadget up")
        #expect(ini.value("Service", "ExecStop") == "/usr/local/bin/aiden-board gadget down")
        #expect(
            ini.value("Unit", "Documentation")
                == "man:aiden-board(8) file:///usr/local/share/doc/aidenbridge/docs/deployment.md")
        #expect(!unit.contains("/usr/bin/"))
        let user = INIFile(
            try String(contentsOfFile: staged.path("usr/local/lib/systemd/user/aiden-phone.service"), encoding: .utf8))
        #expect(user.value("Service", "ExecStart") == "/usr/local/bin/aiden-phone")
        #expect(
            user.value("Unit", "Documentation")
                == "man:aiden-phone(1) man:aiden.toml(5) file:///usr/local/share/doc/aidenbridge/docs/deployment.md")
        // Only our own binary moves with the prefix.
        #expect(user.value("Service", "ExecStartPre")?.hasPrefix("+/bin/mkdir ") == true)
        #expect(FileManager.default.fileExists(atPath: staged.path("usr/local/lib/udev/rules.d/70-aiden-phone.rules")))
        #expect(FileManager.default.fileExists(atPath: staged.path("etc/aiden/board.toml")))
    }

    @Test func theCompletionsAreAidenctlsOwnAndTheManPagesScriptsMans() throws {
        let staged = try StagedInstall()
        let products = try #require(Repository.productsDirectory)
        let installed = [
            ("bash", "usr/share/bash-completion/completions/aidenctl"),
            ("zsh", "usr/share/zsh/vendor-completions/_aidenctl"),
            ("fish", "usr/share/fish/vendor_completions.d/aidenctl.fish"),
        ]
        for (shell, path) in installed {
            let printed = try run("\(products)/aidenctl", ["completion", shell])
            #expect(printed.status == 0)
            #expect(try String(contentsOfFile: staged.path(path), encoding: .utf8) == printed.output, "\(path)")
        }
        let scratch = try Scratch("aiden-man")
        #expect(try run("/bin/bash", ["\(Repository.root)/scripts/man", scratch.path]).status == 0)
        #expect(
            FileManager.default.contentsEqual(
                atPath: "\(scratch.path)/aidenctl.1", andPath: staged.path("usr/share/man/man1/aidenctl.1")))
        // Under another prefix zsh looks in site-functions.
        let local = try StagedInstall(prefix: "/usr/local")
        #expect(FileManager.default.fileExists(atPath: local.path("usr/local/share/zsh/site-functions/_aidenctl")))
        #expect(FileManager.default.fileExists(atPath: local.path("usr/local/share/man/man8/aiden-board.8")))
    }

    @Test func withoutPandocTheManPagesAreLeftOutAndSaidSo() throws {
        let staged = try StagedInstall(environment: ["PANDOC": "/nonexistent/pandoc"])
        #expect(try Self.tree(staged.root) == Self.expectedTree())
        #expect(staged.result.output.contains("install: no /nonexistent/pandoc: the man pages were not installed"))
    }

    @Test func anExistingConfigurationIsKept() throws {
        let staged = try StagedInstall()
        let mine = "[live_activity]\nenabled = false\n"
        try mine.write(toFile: staged.path("etc/aiden/board.toml"), atomically: true, encoding: .utf8)
        let products = try #require(Repository.productsDirectory)
        let again = try run(
            "/bin/bash", ["\(Repository.root)/scripts/install"],
            environment: ["DESTDIR": staged.root, "PREFIX": "/usr", "BIN_DIR": products])
        #expect(again.status == 0)
        #expect(try String(contentsOfFile: staged.path("etc/aiden/board.toml"), encoding: .utf8) == mine)
        #expect(again.output.contains("kept the existing \(staged.root)/etc/aiden/board.toml"))
        #expect(try Self.tree(staged.root) == Self.expectedTree().merging(Self.manPages) { $1 })
    }

    @Test func refusesWithoutBinariesOrWithARelativePrefix() throws {
        let scratch = try Scratch()
        let noBinaries = try run(
            "/bin/bash", ["\(Repository.root)/scripts/install"],
            environment: ["DESTDIR": scratch.path, "BIN_DIR": "\(scratch.path)/none"])
        #expect(noBinaries.status == 66)
        #expect(noBinaries.error.contains("no aiden-board in \(scratch.path)/none: build first"))
        let relative = try run(
            "/bin/bash", ["\(Repository.root)/scripts/install"],
            environment: ["DESTDIR": scratch.path, "PREFIX": "usr"])
        #expect(relative.status == 64)
        #expect(relative.error.contains("PREFIX must be an absolute path"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }

    @Test(.enabled(if: tool("/usr/bin/systemd-sysusers", "/bin/systemd-sysusers") != nil))
    func sysusersCreatesTheUserTheUnitsRunAs() throws {
        let staged = try StagedInstall()
        try FileManager.default.createDirectory(atPath: staged.path("etc"), withIntermediateDirectories: true)
        let sysusers = try #require(tool("/usr/bin/systemd-sysusers", "/bin/systemd-sysusers"))
        let result = try run(sysusers, ["--root=\(staged.root)"])
        #expect(result.status == 0, "\(result.error)")
        let passwd = try String(contentsOfFile: staged.path("etc/passwd"), encoding: .utf8)
        let group = try String(contentsOfFile: staged.path("etc/group"), encoding: .utf8)
        let user = try #require(passwd.split(separator: "\n").first { $0.hasPrefix("aiden:") })
        #expect(user.hasSuffix(":AidenBridge daemons:/:/usr/sbin/nologin"))
        #expect(group.split(separator: "\n").contains { $0.hasPrefix("aiden:") })
        // Member of bluetooth, so BlueZ's D-Bus policy lets both daemons reach org.bluez.
        let bluetooth = try #require(group.split(separator: "\n").first { $0.hasPrefix("bluetooth:") })
        #expect(bluetooth.split(separator: ":").last?.split(separator: ",").contains("aiden") == true)
        for unit in ["aiden-board", "aiden-phone"] {
            let ini = INIFile(
                try String(
                    contentsOfFile: staged.path("usr/lib/systemd/system/\(unit).service"),
                    encoding: .utf8))
            #expect(ini.value("Service", "User") == "aiden")
            #expect(ini.value("Service", "Group") == "aiden")
        }
    }
}
