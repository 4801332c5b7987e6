extension DBusObjectRegistry {
    /// Minimal introspection XML: the standard interfaces, the object's own, and its child nodes. Enough for
    /// `busctl introspect` and `gdbus introspect`; bluetoothd does not read it.
    func introspectionXML(for node: Node?, at path: DBusObjectPath) -> String {
        var lines = [
            #"<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN""#,
            #" "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">"#,
            "<node>",
            #"  <interface name="org.freedesktop.DBus.Introspectable">"#,
            #"    <method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method>"#,
            "  </interface>",
        ]
        if let node {
            lines += Self.standardPropertiesXML
            if node.isObjectManager { lines += Self.objectManagerXML }
            for interface in node.interfaces { lines += Self.xml(for: interface.declaration) }
        }
        for child in childNames(of: path) {
            lines.append(#"  <node name="\#(Self.escaped(child))"/>"#)
        }
        lines.append("</node>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static let standardPropertiesXML = [
        #"  <interface name="org.freedesktop.DBus.Properties">"#,
        #"    <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/>"#
            + #"<arg type="v" direction="out"/></method>"#,
        #"    <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>"#,
        #"    <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/>"#
            + #"<arg type="v" direction="in"/></method>"#,
        #"    <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>"#,
        "  </interface>",
    ]

    private static let objectManagerXML = [
        #"  <interface name="org.freedesktop.DBus.ObjectManager">"#,
        #"    <method name="GetManagedObjects"><arg type="a{oa{sa{sv}}}" direction="out"/></method>"#,
        #"    <signal name="InterfacesAdded"><arg type="o"/><arg type="a{sa{sv}}"/></signal>"#,
        #"    <signal name="InterfacesRemoved"><arg type="o"/><arg type="as"/></signal>"#,
        "  </interface>",
    ]

    private static func xml(for interface: DBusInterface) -> [String] {
        var lines = [#"  <interface name="\#(escaped(interface.name))">"#]
        for method in interface.methods {
            let inputs = arguments(method.inputs, direction: "in")
            let outputs = arguments(method.outputs, direction: "out")
            lines.append(#"    <method name="\#(escaped(method.name))">\#(inputs + outputs)</method>"#)
        }
        for property in interface.properties {
            let access = property.isWritable ? "readwrite" : "read"
            lines.append(
                #"    <property name="\#(escaped(property.name))" type="\#(escaped(property.type.rawValue))""#
                    + #" access="\#(access)"/>"#)
        }
        for signal in interface.signals {
            let arguments = arguments(signal.arguments, direction: nil)
            lines.append(#"    <signal name="\#(escaped(signal.name))">\#(arguments)</signal>"#)
        }
        lines.append("  </interface>")
        return lines
    }

    private static func arguments(_ signature: DBusSignature, direction: String?) -> String {
        let types = (try? signature.types()) ?? []
        return types.map { type in
            let suffix = direction.map { #" direction="\#($0)""# } ?? ""
            return #"<arg type="\#(escaped(type.signature))"\#(suffix)/>"#
        }.joined()
    }

    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
