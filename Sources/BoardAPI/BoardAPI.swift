// The BoardAPI core; see docs/architecture.md.
