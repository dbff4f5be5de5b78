"""Infohashes for tests: random, of the right shape."""

import secrets


def v1() -> str:
    return secrets.token_hex(20)


def v2() -> str:
    return secrets.token_hex(32)
