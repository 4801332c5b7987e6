/// Decides, from what the tree holds, the steps that bring the gadget up or take it down.
/// Pure: the controller reads the tree and performs the steps.
package enum GadgetPlanner {
    package enum UpPlan: Equatable, Sendable {
        /// Bound to this UDC and every entry holds: nothing to write.
        case alreadyUp(udc: String)
        case apply([GadgetStep])
        /// Another gadget in configfs holds the UDC.
        case udcBusy(udc: String, heldBy: String)
    }

    package enum UDCChoice: Equatable, Sendable {
        case use(String)
        /// Nothing requested and no UDC listed.
        case noneAvailable
        /// The requested UDC is not among those listed.
        case notFound(String, available: [String])
    }

    /// Which UDC to bind: the one asked for (`--udc`, then `[gadget] udc`); else the one the gadget
    /// is bound to now (so `up` twice never moves it); else the first listed. `available` is nil when
    /// the UDC class directory could not be listed: then a requested name is tried as given.
    package static func chooseUDC(requested: String?, bound: String?, available: [String]?) -> UDCChoice {
        let listed = available?.sorted()
        if let requested {
            if let listed, !listed.contains(requested) { return .notFound(requested, available: listed) }
            return .use(requested)
        }
        if let bound, listed?.contains(bound) ?? true { return .use(bound) }
        return listed?.first.map(UDCChoice.use) ?? .noneAvailable
    }

    /// Steps that make `observed` match `spec`, bound to `udc`. Attributes that already hold their
    /// value are not written again; a gadget bound elsewhere, or bound but not as specified, is
    /// unbound first (configfs refuses most writes to a bound gadget). The ECM function's
    /// addresses can only change while no configuration links to it (the kernel answers EBUSY
    /// otherwise), so rewriting them removes the link first and makes it again afterwards.
    package static func bringUp(_ spec: GadgetSpec, udc: String, observed: GadgetObservation) -> UpPlan {
        let gadget = GadgetSpec.gadgetName
        if let holder = observed.otherBindings.filter({ $0.value == udc }).keys.sorted().first {
            return .udcBusy(udc: udc, heldBy: holder)
        }
        let functions = "\(gadget)/functions/"
        let rewritesFunction = spec.entries.contains { entry in
            guard case let .attribute(path, _) = entry else { return false }
            return path.hasPrefix(functions) && !observed.holds(entry)
        }
        let missing = spec.entries.filter { entry in
            if case .link = entry, rewritesFunction { return true }
            return !observed.holds(entry)
        }
        if missing.isEmpty, observed.boundUDC == udc { return .alreadyUp(udc: udc) }
        var steps: [GadgetStep] = observed.boundUDC == nil ? [] : [.unbind(gadget: gadget)]
        if rewritesFunction {
            for case let .link(path, _) in spec.entries where observed.links.contains(path) {
                steps.append(.removeLink(path))
            }
        }
        for entry in missing {
            switch entry {
            case let .directory(path): steps.append(.makeDirectory(path))
            case let .attribute(path, value): steps.append(.write(path, value))
            case let .link(path, target): steps.append(.makeLink(path, target: target))
            }
        }
        steps.append(.bind(gadget: gadget, udc: udc))
        return .apply(steps)
    }

    /// The kernel's teardown order (Documentation/usb/gadget_configfs.rst, "Cleaning up"): unbind,
    /// remove function links from configurations, configuration strings, configurations, functions,
    /// gadget strings, then the gadget. Attribute files and the kernel's own subdirectories go with
    /// the directory that holds them.
    package static func tearDown(_ listing: GadgetListing) -> [GadgetStep] {
        let gadget = listing.name
        var steps: [GadgetStep] = listing.boundUDC == nil ? [] : [.unbind(gadget: gadget)]
        steps += listing.osDescriptorLinks.map { .removeLink("\(gadget)/os_desc/\($0)") }
        for configuration in listing.configurations {
            steps += configuration.functionLinks.map { .removeLink("\(gadget)/configs/\(configuration.name)/\($0)") }
        }
        for configuration in listing.configurations {
            let path = "\(gadget)/configs/\(configuration.name)"
            steps += configuration.languages.map { .removeDirectory("\(path)/strings/\($0)") }
            steps.append(.removeDirectory(path))
        }
        steps += listing.functions.map { .removeDirectory("\(gadget)/functions/\($0)") }
        steps += listing.languages.map { .removeDirectory("\(gadget)/strings/\($0)") }
        steps.append(.removeDirectory(gadget))
        return steps
    }
}
