import Testing
@testable import Configuration
