/// `GetManagedObjects`' answer: object path → interface name → property name → value (variants unwrapped).
package typealias DBusManagedObjects = [DBusObjectPath: [String: [String: DBusValue]]]

extension DBusValue {
    /// Builds an `a{sv}` ("vardict": options, properties) from plain values; each is wrapped in a variant.
    /// Keys are sorted so the wire order, and transcripts, do not depend on hashing.
    package static func vardict(_ dictionary: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: .string, value: .variant,
            dictionary.sorted { $0.key < $1.key }.map { DBusDictEntry(.string($0.key), .variant($0.value)) })
    }

    /// The entries of an `a{sv}` with the variants unwrapped one level; nil for any other type.
    package var vardict: [String: DBusValue]? {
        guard case .dictionary(.string, .variant, let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else { return nil }
            result[key] = value
        }
        return result
    }

    /// Builds an `a{<key>v}` keyed by integers or other basic values, e.g. BlueZ's `ManufacturerData` (`a{qv}`).
    /// The caller gives the order (use sorted keys for determinism).
    package static func variantDictionary(key: DBusType, _ entries: [(DBusValue, DBusValue)]) -> DBusValue {
        .dictionary(key: key, value: .variant, entries.map { DBusDictEntry($0.0, .variant($0.1)) })
    }

    /// The entries of an `a{sa{sv}}` (interfaces and their properties, as in `InterfacesAdded`).
    package var interfacesAndProperties: [String: [String: DBusValue]]? {
        guard case .dictionary(.string, .dictionary(key: .string, value: .variant), let entries) = self else {
            return nil
        }
        var result: [String: [String: DBusValue]] = [:]
        for entry in entries {
            guard case .string(let interface) = entry.key, let properties = entry.value.vardict else { return nil }
            result[interface] = properties
        }
        return result
    }

    /// Builds an `a{sa{sv}}`, sorted by interface name.
    package static func interfacesAndProperties(_ interfaces: [String: [String: DBusValue]]) -> DBusValue {
        .dictionary(
            key: .string, value: .dictionary(key: .string, value: .variant),
            interfaces.sorted { $0.key < $1.key }.map { DBusDictEntry(.string($0.key), .vardict($0.value)) })
    }

    /// The type of `GetManagedObjects`' answer, `a{oa{sa{sv}}}`.
    package static let managedObjectsType = DBusType.dictionary(
        key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)))

    /// Builds an `a{oa{sa{sv}}}`, sorted by path.
    package static func managedObjects(_ objects: DBusManagedObjects) -> DBusValue {
        .dictionary(
            key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)),
            objects.sorted { $0.key < $1.key }.map {
                DBusDictEntry(.objectPath($0.key), .interfacesAndProperties($0.value))
            })
    }

    /// The entries of an `a{oa{sa{sv}}}`; nil for any other type.
    package var managedObjects: DBusManagedObjects? {
        guard case .dictionary(.objectPath, _, let entries) = self else { return nil }
        var result: DBusManagedObjects = [:]
        for entry in entries {
            guard case .objectPath(let path) = entry.key, let interfaces = entry.value.interfacesAndProperties
            else { return nil }
            result[path] = interfaces
        }
        return result
    }
}
