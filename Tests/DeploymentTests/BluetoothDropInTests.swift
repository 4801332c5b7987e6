import Foundation
import Testing

/// The board's drop-in for BlueZ's `bluetooth.service` (systemd/bluetooth.service.d/aidenbridge-board.conf):
/// bluetoothd reads a copy of the operator's main.conf with `ControllerMode = le` added, so it runs every
/// controller LE-only (docs/security.md, "Only the phone the cable named may bond").
@Suite struct BluetoothDropInTests {
    static let path = "systemd/bluetooth.service.d/aidenbridge-board.conf"
    static let generated = "/run/aidenbridge-bluetooth/main.conf"
    static let operatorFile = "/etc/bluetooth/main.conf"
    /// GLib's key-file parser, which bluetoothd reads main.conf with (python3-gi), when this host has it.
    static let glib: Bool = {
        guard let python = tool("/usr/bin/python3") else { return false }
        return (try? run(python, ["-c", "from gi.repository import GLib"]))?.status == 0
    }()

    static func dropIn() throws -> INIFile { INIFile(try Repository.text(path)) }

    /// The drop-in's `ExecStartPre=` shell command, with systemd's escapes undone (`\\` is one backslash).
    static func preparation() throws -> String {
        let line = try #require(try dropIn().values("Service", "ExecStartPre").first)
        let prefix = "/bin/sh -c '"
        #expect(line.hasPrefix(prefix) && line.hasSuffix("'"), "\(line)")
        return String(line.dropFirst(prefix.count).dropLast()).replacingOccurrences(of: "\\\\", with: "\\")
    }

    @Test func bluetoothdStartsOnTheCopyInItsRuntimeDirectory() throws {
        let unit = try Self.dropIn()
        #expect(unit.malformed.isEmpty)
        #expect(unit.values("Service", "RuntimeDirectory") == ["aidenbridge-bluetooth"])
        // ExecStart= empty first: the drop-in replaces BlueZ's command line rather than adding a second one.
        #expect(
            unit.values("Service", "ExecStart") == ["", "/usr/libexec/bluetooth/bluetoothd -f \(Self.generated)"])
        #expect(try Self.preparation().hasSuffix("> \(Self.generated)"))
    }

    /// The drop-in runs the same bluetoothd as the unit it extends (Debian's bluez), with -f only added.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/lib/systemd/system/bluetooth.service")))
    func itRunsTheBluetoothdOfBlueZsUnit() throws {
        let bluez = INIFile(try String(contentsOfFile: "/lib/systemd/system/bluetooth.service", encoding: .utf8))
        let original = try #require(bluez.values("Service", "ExecStart").last)
        let replaced = try #require(try Self.dropIn().values("Service", "ExecStart").last)
        #expect(replaced == "\(original) -f \(Self.generated)")
    }

    /// The copy keeps every setting of the operator's and ends LE-only, even where the operator's says `dual`,
    /// read as bluetoothd reads it (GLib: the last value of a key given twice); with no main.conf at all it
    /// is LE-only too.
    @Test(.enabled(if: glib)) func theCopyKeepsTheOperatorsSettingsAndEndsLEOnly() throws {
        let scratch = try Scratch("aiden-bluetooth")
        let operatorFile = "\(scratch.path)/main.conf"
        let copy = "\(scratch.path)/copy.conf"
        try "[General]\nName = Workshop board\nControllerMode = dual\n\n[GATT]\nChannels = 1\n"
            .write(toFile: operatorFile, atomically: true, encoding: .utf8)
        let command = try Self.preparation()
            .replacingOccurrences(of: Self.operatorFile, with: operatorFile)
            .replacingOccurrences(of: Self.generated, with: copy)
        let read = """
            import sys
            from gi.repository import GLib
            k = GLib.KeyFile()
            k.load_from_file(sys.argv[1], GLib.KeyFileFlags.NONE)
            def get(group, key):
                try:
                    return k.get_string(group, key)
                except GLib.Error:
                    return "-"
            print(get("General", "ControllerMode"), get("General", "Name"), get("GATT", "Channels"), sep="|")
            """
        #expect(try run("/bin/sh", ["-c", command]).status == 0)
        #expect(try run("/usr/bin/python3", ["-c", read, copy]).output == "le|Workshop board|1\n")
        try FileManager.default.removeItem(atPath: operatorFile)
        #expect(try run("/bin/sh", ["-c", command]).status == 0)
        #expect(try run("/usr/bin/python3", ["-c", read, copy]).output == "le|-|-\n")
    }
}
