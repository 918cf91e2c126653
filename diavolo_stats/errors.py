"""The one error type for bad input from a person."""


class InputError(ValueError):
    """A value a user gave is not allowed.

    The message is one line that names the field (or flag) and says what is
    allowed. The command line prints it as is and exits with status 2.
    """
