"""What a host or address is: this machine, the public internet, or neither (pure, for checks before any I/O)."""

from __future__ import annotations

import ipaddress

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a URL's host name or address) names this machine."""
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_public_address(address: str) -> bool:
    """True for an address of the public internet: not loopback, link-local, private, shared or reserved."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast
