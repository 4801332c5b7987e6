import WireFormat

/// Typed, validated reads of known members. Absent and `null` both mean "not given".
extension JSONFields {
    private func value(_ field: TaskField) -> JSONValue? {
        switch values[field.name] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    func string(_ field: TaskField) throws(TaskValidationError) -> String? {
        guard let value = value(field) else { return nil }
        guard case .string(let text) = value else {
            throw field.error("must be a string, got \(value.summary)")
        }
        try field.check(text)
        return text
    }

    func bool(_ field: TaskField) throws(TaskValidationError) -> Bool? {
        guard let value = value(field) else { return nil }
        guard case .bool(let flag) = value else {
            throw field.error("must be true or false, got \(value.summary)")
        }
        return flag
    }

    func progress() throws(TaskValidationError) -> Double? {
        let field = TaskField.progress
        guard let value = value(field) else { return nil }
        guard let number = value.double, number.isFinite, (0...1).contains(number) else {
            throw field.error(TaskField.progressExpectation + ", got \(value.summary)")
        }
        return number
    }

    func status(allowed: [TaskStatus]) throws(TaskValidationError) -> TaskStatus? {
        let field = TaskField.status
        guard let value = value(field) else { return nil }
        guard case .string(let text) = value else {
            throw field.error("must be one of \(TaskField.list(allowed)), got \(value.summary)")
        }
        guard let status = TaskStatus(rawValue: text) else {
            throw field.error(
                "unknown status \(TaskValidationError.quoted(text)); must be one of \(TaskField.list(allowed))")
        }
        try field.checkStatus(status, allowed: allowed)
        return status
    }

    func phase() throws(TaskValidationError) -> TaskPhase? {
        let field = TaskField.phase
        let names = TaskPhase.allCases.map(\.rawValue).joined(separator: ", ")
        guard let value = value(field) else { return nil }
        guard case .string(let text) = value else {
            throw field.error("must be one of \(names), got \(value.summary)")
        }
        guard let phase = TaskPhase(rawValue: text) else {
            throw field.error("unknown phase \(TaskValidationError.quoted(text)); must be one of \(names)")
        }
        return phase
    }

    /// `stale_after_seconds` or `abandon_after_seconds`: a whole number of seconds in `range`.
    func seconds(_ field: TaskField, in range: ClosedRange<Int>) throws(TaskValidationError) -> Int? {
        guard let value = value(field) else { return nil }
        guard let number = value.unsignedInteger, number <= UInt64(range.upperBound) else {
            throw field.error(
                "must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound), got \(value.summary)"
            )
        }
        let seconds = Int(number)
        try field.checkSeconds(seconds, in: range)
        return seconds
    }

    func expectedRevision() throws(TaskValidationError) -> UInt64? {
        let field = TaskField.expectedRevision
        guard let value = value(field) else { return nil }
        guard let revision = value.unsignedInteger else {
            throw field.error("must be a non-negative integer, got \(value.summary)")
        }
        return revision
    }
}
