import LiveActivity

/// Something a router asks the shell to do beyond answering: the router stays pure, the shell performs it
/// (and answers with an error instead when it cannot).
package enum RouteEffect: Sendable, Equatable {
    /// `POST /api/bluetooth/pairing/start`: make the adapter pairable and the advertisement discoverable for
    /// this long (1…300 s); the first successful bond closes the window early. The peripheral decides how long
    /// the window really stays open, or that none may open yet, and the shell answers with
    /// `PhoneRouter.pairingAnswer` for that instead of the router's answer.
    /// `phoneAddress`: the Bluetooth address the phone host named for itself (`phone_address`), whose stale
    /// bond the board forgets.
    case openPairingWindow(seconds: Int, phoneAddress: String?, phoneBonded: Bool = false)
    /// `POST /api/phone/app-state`: remember what the phone reported (shown in `/status` as `phone_app`).
    case recordPhoneAppState(PhoneAppState)
    /// `POST /api/live-activity/tasks/{request_id}/answer`: record the person's answer to the task
    /// (`TaskStore.answer`), durably, and answer with what came of it (`PhoneRouter.answerResponse`, or the
    /// refusal) instead of the router's answer, which was only tried on the published board.
    case recordAnswer(requestID: String, AnswerRequest)
}
