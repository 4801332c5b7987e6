// The Configuration core; see docs/architecture.md.
