"""Fakes for the gating engine's interfaces, shared by the test_gating_* modules.

* `FakeEmbedder`: deterministic similarity from a small bilingual concept lexicon
  (ログイン ↔ login ↔ auth …): the cosine of the two texts' concept sets, with
  explicit overrides for grey-zone pairs. The real models are wired and tested by the
  semantic search work; the engine only needs *a* similarity and its thresholds.
* `FakeIndex`: a `SymbolIndex` backed by a dict of the Laravel fixture's symbols.
* `FakeClock`: time that moves only when a test moves it.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from code_intel.gating.config import GatingConfig
from code_intel.gating.engine import GatingEngine
from code_intel.gating.interfaces import Embedder, SimilarityThresholds, SymbolIndex, SymbolLocation
from code_intel.gating.store import SessionStore

FIXTURES = Path(__file__).parent.parent / "fixtures"

LEXICON = {
    "ログイン": "auth", "login": "auth", "サインイン": "auth", "sign in": "auth",
    "認証": "auth", "auth": "auth",
    "ログアウト": "logout", "logout": "logout",
    "ユーザー": "user", "user": "user",
    "パスワード": "password", "password": "password",
    "ロック": "lock", "lock": "lock", "throttl": "lock",
    "注文": "order", "order": "order",
    "支払": "payment", "決済": "payment", "payment": "payment", "stripe": "payment",
    "商品": "product", "product": "product",
    "カート": "cart", "cart": "cart",
    "エラー": "error", "error": "error", "failed": "error", "失敗": "error",
}

CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"
AUTH = "app/Services/AuthService.php"
USERS = "app/Repositories/UserRepository.php"
USER = "app/Models/User.php"
ROUTES = "routes/web.php"

SYMBOLS = {
    "LoginController": CONTROLLER,
    "LoginController::login": CONTROLLER,
    "LoginController::logout": CONTROLLER,
    "LoginController::showLoginForm": CONTROLLER,
    "AuthService": AUTH,
    "AuthService::attempt": AUTH,
    "AuthService::isLockedOut": AUTH,
    "AuthService::recordFailedAttempt": AUTH,
    "UserRepository": USERS,
    "UserRepository::findByEmail": USERS,
    "User": USER,
    "OrderController": "app/Http/Controllers/OrderController.php",
    "StripePaymentGateway": "app/Services/StripePaymentGateway.php",
    "Product": "app/Models/Product.php",
}


class FakeEmbedder:
    def __init__(
        self,
        thresholds: SimilarityThresholds | None = None,
        overrides: dict[tuple[str, str], float] | None = None,
    ) -> None:
        self.thresholds = thresholds or SimilarityThresholds()
        self.overrides = {frozenset(k): v for k, v in (overrides or {}).items()}
        self.asked: list[tuple[str, str]] = []

    @staticmethod
    def concepts(text: str) -> set[str]:
        folded = text.casefold()
        return {concept for word, concept in LEXICON.items() if word in folded}

    def similarity(self, a: str, b: str) -> float:
        self.asked.append((a, b))
        if frozenset((a, b)) in self.overrides:
            return self.overrides[frozenset((a, b))]
        ca, cb = self.concepts(a), self.concepts(b)
        if not ca or not cb:
            return 0.0
        return len(ca & cb) / math.sqrt(len(ca) * len(cb))


class FakeIndex:
    def __init__(self, symbols: dict[str, str] | None = None, files: set[str] | None = None):
        self.symbols = dict(SYMBOLS if symbols is None else symbols)
        self.files = set(self.symbols.values()) | {ROUTES} if files is None else set(files)

    def lookup(self, name: str) -> list[SymbolLocation]:
        path = self.symbols.get(name)
        return [SymbolLocation(name.rsplit("::", 1)[-1], name, path)] if path else []

    def file_exists(self, rel_path: str) -> bool:
        return rel_path in self.files


class FakeClock:
    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def laravel_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    if not root.exists():
        shutil.copytree(FIXTURES / "laravel_app", root)
    return root


def make_engine(
    tmp_path: Path,
    *,
    index: SymbolIndex | None = None,
    embedder: Embedder | None = None,
    clock: FakeClock | None = None,
    db: Path | None = None,
    sinks=(),
    **config,
) -> GatingEngine:
    root = laravel_workspace(tmp_path)
    return GatingEngine(
        SessionStore(db or tmp_path / "sessions.db"),
        index or FakeIndex(),
        embedder or FakeEmbedder(),
        GatingConfig(workspace_root=root, **config),
        clock=clock or FakeClock(),
        sinks=sinks,
    )


def run(engine: GatingEngine, sid: str, tool: str, files=(), symbols=(), **args) -> dict:
    """What the language server does for an index tool: ask, run, record."""
    engine.check_tool(sid, tool, args)
    return engine.record_tool_call(
        sid, tool, args, result_files=list(files), result_symbols=list(symbols)
    )


# The detailed request of seed 001's walkthrough (all four slots) and its slots.
DETAILED = (
    "ログイン画面で間違ったパスワードを5回入力したときにアカウントがロックされないので、"
    "ロックするように修正して"
)
DETAILED_SLOTS = {
    "target_feature": {"value": "ログイン画面", "quote": "ログイン画面で"},
    "trigger_condition": {
        "value": "間違ったパスワードを5回入力したとき",
        "quote": "間違ったパスワードを5回入力したときに",
    },
    "observed_issue": {"value": "アカウントがロックされない", "quote": "アカウントがロックされないので"},
    "desired_action": {"value": "ロックするように修正", "quote": "ロックするように修正して"},
}

# LOW requirements exactly: 3 symbols, 1 entry point, 2 files, 1 pattern.
LOW_UNDERSTANDING = {
    "symbols_identified": ["LoginController", "LoginController::login", "AuthService::isLockedOut"],
    "entry_points": ["LoginController::login"],
    "existing_patterns": ["RateLimiter::tooManyAttempts keyed by the e-mail"],
    "files_analyzed": [CONTROLLER, AUTH],
}


def ready_session(engine: GatingEngine, files=(CONTROLLER, AUTH)) -> str:
    """A MODIFY session with all slots (LOW) driven to READY."""
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.set_query_frame(sid, DETAILED_SLOTS)
    run(engine, sid, "find_definitions", files=[CONTROLLER], symbol="LoginController")
    run(engine, sid, "find_references", files=[AUTH], symbol="AuthService")
    result = engine.submit_understanding(
        sid, **{**LOW_UNDERSTANDING, "files_analyzed": list(files)}
    )
    assert result["phase"] == "READY", result["missing_requirements"]
    return sid


# ---- the fakes honour the interfaces ------------------------------------------------


def test_fakes_satisfy_the_protocols():
    assert isinstance(FakeEmbedder(), Embedder)
    assert isinstance(FakeIndex(), SymbolIndex)


def test_fake_embedder_is_deterministic_and_bilingual():
    e = FakeEmbedder()
    assert e.similarity("ログイン機能", "Login Controller") == pytest.approx(1.0)
    assert e.similarity("ログイン機能", "Order Controller") == 0.0
    assert e.similarity("a", "b") == e.similarity("a", "b")


def assert_plain_json(obj, path="$"):
    """Every answer must be plain JSON types (the MCP layer sends it as is)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            assert type(k) is str, f"{path}: key {k!r}"
            assert_plain_json(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            assert_plain_json(v, f"{path}[{i}]")
    else:
        assert obj is None or type(obj) in (str, int, float, bool), f"{path}: {type(obj)}"
