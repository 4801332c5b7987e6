import Testing

@testable import LiveActivity

@Suite struct TaskStoreErrorTests {
    @Test(arguments: [
        (TaskStoreError.notFound(id: "chat_x"), "not_found", nil as String?, #"no task with request_id "chat_x""#),
        (.conflict("task \"a\" has ended"), "conflict", nil, "task \"a\" has ended"),
        (
            .invalid(TaskValidationError(field: "progress", message: "must be a number between 0 and 1, got 2")),
            "invalid", "progress", #"field "progress": must be a number between 0 and 1, got 2"#
        ),
        (
            .capacityExceeded(capacity: 256), "capacity_exceeded", nil,
            "the store already holds 256 active tasks, its capacity; end a task before starting another"
        ),
    ])
    func codesFieldsAndDescriptions(error: TaskStoreError, code: String, field: String?, description: String) {
        #expect(error.code == code)
        #expect(error.field == field)
        #expect(error.description == description)
    }

    @Test func quotingEscapesAndCutsLongValues() {
        #expect(TaskValidationError.quoted("a\"b\\c\u{1}") == #""a\"b\\c\u{1}""#)
        #expect(TaskValidationError.quoted(text("x", 41)) == "\"" + text("x", 40) + "…\"")
    }
}
