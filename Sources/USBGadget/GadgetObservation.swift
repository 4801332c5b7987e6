/// What the configfs tree holds now, for the parts of the gadget the spec names: read by the
/// controller, judged by `GadgetPlanner`. Paths are relative to `usb_gadget/`.
package struct GadgetObservation: Equatable, Sendable {
    package var directories: Set<String> = []
    package var links: Set<String> = []
    /// Attribute values with the trailing newline removed, for the attributes that exist.
    package var attributes: [String: String] = [:]
    /// The UDC our gadget is bound to; nil when unbound or absent.
    package var boundUDC: String?
    /// Other gadgets in `usb_gadget/` that are bound: name → UDC.
    package var otherBindings: [String: String] = [:]

    package init(
        directories: Set<String> = [], links: Set<String> = [], attributes: [String: String] = [:],
        boundUDC: String? = nil, otherBindings: [String: String] = [:]
    ) {
        self.directories = directories
        self.links = links
        self.attributes = attributes
        self.boundUDC = boundUDC
        self.otherBindings = otherBindings
    }

    /// Whether the tree already has this entry as the spec wants it.
    package func holds(_ entry: GadgetEntry) -> Bool {
        switch entry {
        case let .directory(path): directories.contains(path)
        case let .attribute(path, value): attributes[path] == value
        case let .link(path, _): links.contains(path)
        }
    }
}

/// Everything a gadget directory holds that teardown must remove, in the names configfs lists.
package struct GadgetListing: Equatable, Sendable {
    package struct Configuration: Equatable, Sendable {
        package var name: String
        /// Links to functions inside the configuration directory.
        package var functionLinks: [String]
        /// `strings/<language>` directories.
        package var languages: [String]

        package init(name: String, functionLinks: [String] = [], languages: [String] = []) {
            self.name = name
            self.functionLinks = functionLinks
            self.languages = languages
        }
    }

    package var name: String
    package var boundUDC: String?
    package var configurations: [Configuration]
    package var functions: [String]
    package var languages: [String]
    /// Links in `os_desc/` (to a configuration), made by some gadget scripts for Windows hosts.
    package var osDescriptorLinks: [String]

    package init(
        name: String = GadgetSpec.gadgetName, boundUDC: String? = nil, configurations: [Configuration] = [],
        functions: [String] = [], languages: [String] = [], osDescriptorLinks: [String] = []
    ) {
        self.name = name
        self.boundUDC = boundUDC
        self.configurations = configurations
        self.functions = functions
        self.languages = languages
        self.osDescriptorLinks = osDescriptorLinks
    }
}
