"""The code-intel language server: one owner per workspace, serving editors over stdio
and other clients (the MCP bridge) over a local endpoint."""
