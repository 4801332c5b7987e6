/// Text from outside (the board's answers, a USB device's descriptors) made fit for one printed line: the
/// card's cleaning (no control, line-separator or format characters), then cut to `limit` characters.
package enum BoardText {
    package static func printable(_ text: String, limit: Int = 200) -> String {
        let clean = CardTextRenderer.clean(text)
        return clean.count > limit ? String(clean.prefix(limit)) + "..." : clean
    }
}
