import DBusModel

/// libdbus's C struct is also called `DBusError`; in this module the name means the model's error, and the C
/// struct is spelled `CDBus.DBusError` where a libdbus call needs one.
typealias DBusError = DBusModel.DBusError
