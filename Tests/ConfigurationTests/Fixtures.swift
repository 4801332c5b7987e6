@testable import Configuration

/// Parse results as values, so tables of cases can compare errors directly.
func parseBoard(_ text: String, file: String = "board.toml") -> Result<BoardConfiguration, ConfigurationError> {
    Result { () throws(ConfigurationError) in try BoardConfiguration.parse(text, file: file) }
}

func parsePhone(_ text: String, file: String = "phone.toml") -> Result<PhoneConfiguration, ConfigurationError> {
    Result { () throws(ConfigurationError) in try PhoneConfiguration.parse(text, file: file) }
}

/// The board file with every key at its default (docs/configuration.md).
let contractBoardFile = """
    [live_activity]
    enabled = true
    retention_seconds = 600

    [http]
    listen = ["192.168.42.1:8080"]          # "host:port"; IPv6 in brackets, "[::]:8080" is dual-stack
    allowed_subnets = ["192.168.42.0/24"]   # loopback is always allowed

    [wake]
    transport = "bluez"                      # or "loopback"
    loopback_target = "127.0.0.1:47800"      # UDP: each datagram is one 12-byte envelope
    coalesce_milliseconds = 750
    adapter = "hci0"
    characteristic_flags = ["encrypt-read", "notify"]

    [agent]
    socket = "/run/aiden/agent.sock"

    [gadget]
    vendor_id = "0x1d6b"                     # Linux Foundation; use your own in products
    product_id = "0x0104"
    udc = ""                                 # empty: the first entry of /sys/class/udc

    [state]
    directory = "/var/lib/aiden-board"

    """

/// The phone file with every key at its default (docs/configuration.md).
let contractPhoneFile = """
    [board]
    url = "http://192.168.42.1:8080"

    [wake]
    transport = "bluez"
    loopback_listen = "127.0.0.1:47800"
    adapter = "hci0"
    address = ""

    [usb]
    vendor_id = "0x1d6b"
    product_id = "0x0104"

    [phone]
    id = ""

    [state]
    directory = "/var/lib/aiden-phone"

    [log]
    level = "info"

    """
