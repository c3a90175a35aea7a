"""code-intel: one import namespace over the four layers (indexing, gating, lsp_server,
mcp_bridge), which live in top-level folders of the repository and are mapped here by
setuptools' ``package-dir``; the command line sits above all four."""

__version__ = "0.1.0"
