"""The exceptions of the sift package."""


class SiftError(Exception):
    """An operation of sift failed.

    Attributes:
        message: the readable line, "<what>: <where>: <why>".
        status: the C API's status code (an int, sift_status in sift/sift.h).
        code: its name: "InvalidArgument", "Malformed", "NotFound", "Corruption", "IOError",
            "AlreadyExists", "Busy", "NotSupported", "NoMemory" or "Internal".
    """

    def __init__(self, message: str, status: int, code: str):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code


class FilterError(SiftError, ValueError):
    """A filter (sql, jms, properties, application_properties) does not compile.

    Attributes (besides SiftError's):
        clause: the index of the failing filter among those given, in the order sql, jms,
            properties, application_properties (those given only).
        position: the byte offset in that filter's text where the problem starts, or None.
        selector_code: the compiler's name for the problem ("syntax", "unexpected-end",
            "unknown-field", ...), or "" when the filter was refused before it reached the compiler.
    """

    def __init__(self, message: str, status: int, code: str, clause: int, position, selector_code: str):
        super().__init__(message, status, code)
        self.clause = clause
        self.position = position
        self.selector_code = selector_code
