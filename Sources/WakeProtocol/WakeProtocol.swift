// The WakeProtocol core; see docs/architecture.md.
