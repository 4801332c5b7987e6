// The PhoneCore core; see docs/architecture.md.
