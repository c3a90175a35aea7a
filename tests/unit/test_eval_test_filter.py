"""The retrieval evaluations exclude test files from candidates and answers (issue 18's
protocol); a test file that slips through takes a place in the ranking that no user
would count, so the filter must know the conventions of the apps evaluated."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from history_eval import is_test


@pytest.mark.parametrize("path", [
    "tests/test_app.py", "hc/api/tests/test_check.py", "bookmarks/tests_e2e/e2e_test_bookmark_page.py",
    "src/lib/format.test.ts", "src/components/common/Empty.test.tsx", "cypress/e2e/login.cy.ts",
    "src/app/__tests__/page.tsx", "web/src/api.spec.js", "conftest.py", "pkg/client_test.py",
])
def test_test_files_of_python_and_js_conventions_are_excluded(path):
    assert is_test(path)


@pytest.mark.parametrize("path", [
    "hc/api/models.py", "flask/testing.py", "src/app/(main)/console/[websiteId]/TestConsolePage.tsx",
    "src/attestation.py", "src/latest/index.ts",
])
def test_source_files_are_kept(path):
    assert not is_test(path)
