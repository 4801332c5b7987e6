/// `task run --progress-from-stdout`: picks `PROGRESS 0.4 Step text` lines out of the command's stdout and
/// passes every other byte through unchanged, as soon as it can tell the line is not one (so a prompt
/// without a newline still shows). Bytes in, bytes and reports out; no I/O.
package struct ProgressLineFilter: Sendable {
    /// One `PROGRESS` line: the progress and, when the line had text after the number, the step.
    package struct Report: Sendable, Equatable {
        package var progress: Double
        package var step: String?

        package init(progress: Double, step: String? = nil) {
            self.progress = progress
            self.step = step
        }
    }

    private static let marker = Array("PROGRESS ".utf8)
    /// A would-be progress line longer than this is not one: passed through rather than held.
    private static let maxLineBytes = 4096

    private enum Mode {
        /// At a line start, or holding a prefix of the marker.
        case lineStart
        /// Holding a line that began with the marker.
        case holding
        /// Inside a line that is not a progress line: bytes go straight out.
        case passing
    }

    private var mode = Mode.lineStart
    private var held: [UInt8] = []

    package init() {}

    /// What to write out now and the progress lines completed by these bytes, oldest first.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> (output: [UInt8], reports: [Report]) {
        var output: [UInt8] = []
        var reports: [Report] = []
        for byte in bytes {
            switch mode {
            case .passing:
                output.append(byte)
                if byte == UInt8(ascii: "\n") { mode = .lineStart }
            case .lineStart:
                held.append(byte)
                if held.count == Self.marker.count, held == Self.marker {
                    mode = .holding
                } else if held[held.count - 1] != Self.marker[held.count - 1] {
                    output += held
                    held = []
                    mode = byte == UInt8(ascii: "\n") ? .lineStart : .passing
                }
            case .holding:
                held.append(byte)
                if byte == UInt8(ascii: "\n") {
                    if let report = Self.parse(held) {
                        reports.append(report)
                    } else {
                        output += held
                    }
                    held = []
                    mode = .lineStart
                } else if held.count > Self.maxLineBytes {
                    output += held
                    held = []
                    mode = .passing
                }
            }
        }
        return (output, reports)
    }

    /// At the end of the stream: a last line without a newline, read like the others.
    package mutating func finish() -> (output: [UInt8], reports: [Report]) {
        defer {
            held = []
            mode = .lineStart
        }
        if mode == .holding, let report = Self.parse(held) { return ([], [report]) }
        return (held, [])
    }

    /// `PROGRESS <fraction 0…1 or percent> [step]`, the line's bytes with or without its newline.
    static func parse(_ line: [UInt8]) -> Report? {
        var text = String(decoding: line.dropFirst(marker.count), as: UTF8.self)
        while let last = text.last, last == "\n" || last == "\r" { text.removeLast() }
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        let number = trimmed.prefix { $0 != " " && $0 != "\t" }
        guard let progress = progress(String(number)) else { return nil }
        let step = RunText.clean(String(trimmed.dropFirst(number.count)), limit: RunText.maxStepCharacters)
        return Report(progress: progress, step: step.isEmpty ? nil : step)
    }

    /// `0.4`, `1`, `.25` or `40%`; nothing outside 0…1.
    private static func progress(_ text: String) -> Double? {
        let percent = text.hasSuffix("%")
        guard let value = Double(percent ? String(text.dropLast()) : text), value.isFinite else { return nil }
        let fraction = percent ? value / 100 : value
        guard fraction >= 0, fraction <= 1 else { return nil }
        return fraction == 0 ? 0 : fraction
    }
}

extension ProgressLineFilter.Report {
    /// Several reports from one read, as one update: the newest progress, and the newest step given.
    package static func merged(_ reports: [Self]) -> Self? {
        guard let last = reports.last else { return nil }
        return Self(progress: last.progress, step: reports.last(where: { $0.step != nil })?.step)
    }
}
