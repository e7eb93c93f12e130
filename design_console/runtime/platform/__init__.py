"""Every difference between Linux, macOS and Windows that the local stack meets, and nothing else.

Modules above this package never branch on the OS nor import an OS-only module (``tests/test_platform_ban.py``):
they call these functions, which mypy checks once per platform (``--platform linux|darwin|win32``).
"""
