"""Pure domain: no I/O, no framework imports."""
