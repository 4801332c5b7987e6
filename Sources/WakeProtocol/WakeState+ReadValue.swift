extension WakeState {
    /// What the Wake characteristic's ReadValue answers before the board has sent any Wake
    /// (docs/protocol.md §2.1): a `system` envelope with this epoch and the persisted sequence mark, so a
    /// reader never sees a sequence above one that a later Wake could carry.
    package var readValueBeforeFirstWake: WakeEnvelope {
        WakeEnvelope(reason: .system, epoch: epoch, sequence: sequenceHighWater)
    }
}
