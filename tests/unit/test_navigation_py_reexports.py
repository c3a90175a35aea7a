"""Python names imported from a package that re-exports them (`from uvicorn import
Config` where uvicorn/__init__.py does `from uvicorn.config import Config`): the
definition behind the re-export types receivers, the way uvicorn's and most
libraries' code and tests import. Real tree-sitter, real index."""

from __future__ import annotations

import pytest
from code_intel.lsp_server.live_index import LiveIndex

from tests.unit.source_tree import definitions_at, indexed_tree

FILES = {
    "uvicorn/__init__.py": (
        "from uvicorn.config import Config\nfrom uvicorn.main import Server as Server\n\n"
        "__all__ = [\"Config\", \"Server\"]\n"
    ),
    "uvicorn/config.py": (
        "class Config:\n    def __init__(self, app: str, lifespan: str = \"auto\") -> None:\n"
        "        self.app = app\n        self.lifespan = lifespan\n"
    ),
    "uvicorn/main.py": (
        "from uvicorn.config import Config\n\n\n"
        "class Server:\n    def __init__(self, config: Config) -> None:\n        self.config = config\n"
        "        self.lifespan = None\n\n    def run(self) -> None:\n        pass\n"
    ),
    "uvicorn/supervisors/__init__.py": (
        "from uvicorn.supervisors.multiprocess import Multiprocess\n\n__all__ = [\"Multiprocess\"]\n"
    ),
    "uvicorn/supervisors/multiprocess.py": (
        "from uvicorn.config import Config\n\n\n"
        "class Process:\n    @property\n    def pid(self) -> int:\n        return 1\n\n\n"
        "class Multiprocess:\n    def __init__(self, config: Config) -> None:\n"
        "        self.config = config\n        self.processes: list[Process] = []\n\n"
        "    def run(self) -> None:\n        pass\n"
    ),
    "uvicorn/supervisors/basereload.py": (
        "class BaseReload:\n    def __init__(self) -> None:\n        self.pid = 0\n"
    ),
    "uvicorn/lifespan/__init__.py": "",
    "uvicorn/lifespan/on.py": (
        "from uvicorn import Config\n\n\n"
        "class LifespanOn:\n    def __init__(self, config: Config) -> None:\n        self.config = config\n\n"
        "    async def shutdown(self) -> None:\n        if self.config.lifespan == \"on\":\n            pass\n"
    ),
    # alembic/environment.py: a module that re-exports another whole
    "uvicorn/environment.py": "from .runtime.environment import *  # noqa\n",
    "uvicorn/runtime/__init__.py": "",
    "uvicorn/runtime/environment.py": (
        "class EnvironmentContext:\n    def configure(self, url: str) -> None:\n        pass\n"
    ),
    "uvicorn/runtime/migration.py": (
        "class MigrationContext:\n    def configure(self, url: str) -> None:\n        pass\n"
    ),
    "tests/test_environment.py": (
        "from uvicorn.environment import EnvironmentContext\n\n\n"
        "def test_configure() -> None:\n    env = EnvironmentContext()\n    env.configure(url=\"sqlite://\")\n"
    ),
    "tests/test_multiprocess.py": (
        "from uvicorn import Config, Server\nfrom uvicorn.supervisors import Multiprocess\n\n\n"
        "def test_sighup() -> None:\n    config = Config(app=\"x\")\n"
        "    supervisor = Multiprocess(config)\n"
        "    pids = [p.pid for p in supervisor.processes]\n"
        "    Server(config).run()\n    assert pids\n"
    ),
}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveIndex:
    return indexed_tree(tmp_path_factory.mktemp("pyreexp") / "repo", FILES)


def defs(live: LiveIndex, rel: str, needle: str, word: str) -> list[str]:
    return [f"{s.path}:{s.symbol.qualified_name}" for s in definitions_at(live, FILES, rel, needle, word)]


def test_member_of_a_class_imported_from_its_package(live: LiveIndex):
    # before: `self.config.lifespan` listed Config's and Server's `lifespan`
    assert defs(live, "uvicorn/lifespan/on.py", "self.config.lifespan", "lifespan") == [
        "uvicorn/config.py:uvicorn.config.Config.lifespan"
    ]


def test_item_of_a_list_on_a_reexported_class(live: LiveIndex):
    # before: `p.pid` listed Process's property and BaseReload's field
    assert defs(live, "tests/test_multiprocess.py", "p.pid", "pid") == [
        "uvicorn/supervisors/multiprocess.py:uvicorn.supervisors.multiprocess.Process.pid"
    ]


def test_reexport_under_an_alias(live: LiveIndex):
    assert defs(live, "tests/test_multiprocess.py", "Server(config).run", "run") == [
        "uvicorn/main.py:uvicorn.main.Server.run"
    ]


def test_a_name_from_a_module_that_star_imports_another(live: LiveIndex):
    # before: `from uvicorn.environment import EnvironmentContext` found nothing behind the
    # `import *`, and `env.configure` listed both configure methods
    assert defs(live, "tests/test_environment.py", "env.configure", "configure") == [
        "uvicorn/runtime/environment.py:uvicorn.runtime.environment.EnvironmentContext.configure"
    ]
