// Top-level code is @MainActor; keep it to one call so no closure inherits that isolation
// (see SWIFT-C-NOTES.md pitfall 7).
Entry.main()
