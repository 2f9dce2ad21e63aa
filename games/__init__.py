"""Game rules as pure environments: no I/O, no logging, no import of ``sdk`` or a service."""
