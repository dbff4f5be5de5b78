"""Numbers read from outside (URLs, cookies, forms, provider answers).

``str.isdigit()`` accepts "²" and "٣", which ``int()`` then refuses or reads
differently, and an unbounded run of digits costs quadratic time to convert.
Every number that comes from outside goes through here.
"""


def ascii_int(text: str, max_digits: int) -> int | None:
    """The value of 1..max_digits ASCII digits; None for anything else."""
    if not 0 < len(text) <= max_digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)
