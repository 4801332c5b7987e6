import Testing
@testable import WakeProtocol
