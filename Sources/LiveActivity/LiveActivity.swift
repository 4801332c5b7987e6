// The LiveActivity core; see docs/architecture.md.
