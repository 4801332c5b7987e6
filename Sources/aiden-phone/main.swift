// Top-level code is @MainActor; keep it to one call so no closure inherits that isolation
// (a closure run on another thread would trap: docs/architecture.md, "main.swift holds one call").
Entry.main()
