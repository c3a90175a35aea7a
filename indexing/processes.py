"""Whether a process still runs, by its id (stdlib only: the hook's lean path imports it).

Used where a file names the process that made it: the endpoint's `server.json` (is
that server still there?) and a first build's side file (was its builder killed?).
"""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True while process `pid` exists, also when it belongs to another user (the signal
    is refused, not the process missing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
