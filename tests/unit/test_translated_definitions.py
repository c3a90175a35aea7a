"""A Japanese request's translated word names a definition only if few definitions share it
(search.TRANSLATED_SINGLE_WORD_MAX_DEFINITIONS).

The shape that failed on real apps (set (b) tune, Japanese): 保存 becomes `save`, and every
model of the app defines `save()`, so the definition signal voted for each of them and they
outranked the file the request is about (下書きを保存する: the draft code). A translated word
is a guess at the request's word; a guess that names many definitions names none of them.
Real tree-sitter indexing, real FTS5, real MeCab and JMdict; no vectors.
"""

from __future__ import annotations

import pytest
from code_intel.indexing.config import Config
from code_intel.indexing.lexical import LexicalIndex
from code_intel.indexing.search import hybrid_query
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace

MODELS = ("app/models/user.py", "app/models/tag.py", "app/models/team.py")
FILES = {
    **{path: (f"class {path.rsplit('/', 1)[1][:-3].title()}:\n    def save(self):\n"
              f'        """Save the record."""\n        self.db.write(self)\n') for path in MODELS},
    "app/drafts/keeper.py": ('class DraftKeeper:\n    def keep(self, draft):\n'
                             '        """Keep a draft until it is published."""\n        self.drafts.append(draft)\n'),
    "app/drafts/publisher.py": ('def publish(draft):\n    """Publish a draft: it becomes a post."""\n'
                                "    draft.state = 'published'\n"),
}
WORDS = ("lexical", "definition", "reference")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("translated_definitions") / "ws"
    for path, text in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config(workers=1))
    lexical = LexicalIndex.for_workspace(root)
    lexical.sync(store)
    return store, lexical


def _files(workspace, text: str):  # type: ignore[no-untyped-def]
    store, lexical = workspace
    return hybrid_query(text, store=store, lexical=lexical, vectors=None, signals=WORDS).files


def test_a_translated_word_every_model_defines_does_not_pull_the_models_up(workspace):
    files = _files(workspace, "下書きを保存する")  # save the draft; 保存 → save
    assert files[0].path.startswith("app/drafts/")
    assert all(f.path.startswith("app/drafts/") for f in files[:2])
    # before: the three models' `save()` outranked both draft files
    assert not any("save" in f.evidence.get("definitions", ()) for f in files)


def test_a_translated_word_one_definition_has_still_names_it(workspace):
    files = _files(workspace, "下書きを公開する")  # publish the draft; 公開 → publish
    assert files[0].path == "app/drafts/publisher.py"
    assert files[0].evidence["definitions"] == ["publish"]


def test_an_english_request_keeps_naming_the_shared_definition(workspace):
    files = _files(workspace, "save the draft")
    assert {f.path for f in files if "save" in f.evidence.get("definitions", ())} == set(MODELS)
