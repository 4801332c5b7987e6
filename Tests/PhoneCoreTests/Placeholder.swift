import Testing
@testable import PhoneCore
