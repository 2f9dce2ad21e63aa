"""When two registrations name the same agent: endpoints and display names in a canonical
form, so that spelling tricks (``localhost`` for ``127.0.0.1``, a trailing slash, an
upper-case host, a query, a zero-width or full-width character in a name) cannot pass one
agent off as two, or one person as another."""

from __future__ import annotations

import ipaddress
import socket
import unicodedata
from urllib.parse import quote, unquote, urlsplit

__all__ = ["canonical_endpoint", "clean_display_name", "name_key"]

_DEFAULT_PORTS = {"http": 80, "https": 443}
_LOOPBACK = "127.0.0.1"
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
"""Unicode categories that show nothing: controls, format characters (zero-width space and
joiners, bidi marks, the BOM), private-use, surrogates and unassigned code points."""


def _canonical_host(host: str) -> str:
    host = host.lower().rstrip(".")
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return _LOOPBACK
    address: ipaddress.IPv4Address | ipaddress.IPv6Address | None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = _legacy_ipv4(host)
    if address is None:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback and address.version == 6:
        return _LOOPBACK
    return str(address) if address.version == 4 else f"[{address.compressed}]"


def _legacy_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """``2130706433``, ``127.1``, ``0x7f.0.0.1``: forms of an IPv4 address that the C
    resolver (and so the HTTP client) accepts, and ``ipaddress`` does not."""
    if not host or not all(c in "0123456789abcdefx." for c in host):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def canonical_endpoint(url: str) -> str:
    """The form in which two endpoints that reach the same server are equal: lower-case
    scheme and host, loopback names and addresses as ``127.0.0.1``, the port always
    written, no user info, no trailing slash, no query or fragment.

    Raises:
        ValueError: ``url`` is not an http(s) URL with a host.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"{url!r} is not an http(s) URL with a host")
    port = parts.port or _DEFAULT_PORTS[scheme]
    path = quote(unquote(parts.path), safe="/:@!$&'()*+,;=-._~").rstrip("/")
    return f"{scheme}://{_canonical_host(parts.hostname)}:{port}{path}"


def clean_display_name(display_name: str) -> str:
    """A display name as we keep and show it: NFKC-normalised (full-width letters become
    plain ones), invisible characters removed, runs of white space made one space."""
    normal = unicodedata.normalize("NFKC", display_name)
    visible = "".join(c for c in normal if unicodedata.category(c) not in _INVISIBLE or c in "\t\n")
    return " ".join(visible.split())


def name_key(display_name: str) -> str:
    """What two display names must differ in to be two people: the cleaned name, case
    folded."""
    return unicodedata.normalize("NFKC", clean_display_name(display_name).casefold())
