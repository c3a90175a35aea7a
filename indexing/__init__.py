"""The workspace index: file discovery, per-language chunking, symbols, store and sync."""

__version__ = "0.1.0"
