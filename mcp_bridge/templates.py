"""Texts `code-intel init` writes into a repository for Claude Code."""

CODE_COMMAND = """\
---
description: Explore with code-intel before editing, then implement with evidence
argument-hint: <what to build, change, investigate or ask>
---
Work on this request with the code-intel tools: $ARGUMENTS

code-intel gates edits: Edit/Write on code files are blocked until your session
is READY. Follow these steps in order; the server decides when you may move on.

1. `start_session` with the intent (IMPLEMENT, MODIFY, INVESTIGATE or QUESTION) and
   the request verbatim as `query`. Read the returned extraction prompt and the map
   hint: learned symbols for a similar request may already be known.
2. `set_query_frame`: fill the slots (target_feature, trigger_condition,
   observed_issue, desired_action) only with values you can quote from the request.
   Every slot needs a `quote` copied from the request; invented quotes are rejected.
3. Explore with the tools the session recommends for the missing slots:
   `find_definitions`, `find_references`, `search_text`, `query`, `get_symbols`,
   `analyze_structure`, `get_function_at_line`. The server counts what you actually
   called; claims do not count. Files those tools return, and files you open with
   Read (or find with Grep/Glob), count as explored.
4. `submit_understanding` with the symbols, entry points, existing patterns and files
   you found (they must exist in the index and the workspace).
5. `validate_symbol_relevance` with the target feature, your symbols and the code
   evidence that ties them together.
6. If the phase becomes SEMANTIC, `submit_semantic` with hypotheses and the reason
   that matches what is missing, then VERIFICATION: check each hypothesis with the
   exploration tools and `submit_verification`.
7. When the phase is READY, call `check_write_target` for each file before editing it.
   If a file is refused, follow its first recovery option: read the file, or
   `add_explored_files` for a new file next to code you explored. Nothing but
   `revert_to_exploration` takes the session out of READY.
8. Make the change. Then run `/outcome` (or `record_outcome`) with success, failure
   or partial, so the next session learns from this one.
"""

OUTCOME_COMMAND = """\
---
description: Report how the last code-intel session went (success, failure, partial)
argument-hint: <success|failure|partial> [what happened]
---
Record the outcome of the current code-intel session: $ARGUMENTS

Call `record_outcome` with the active `session_id`, the outcome (`success`,
`failure` or `partial`) and a short analysis: what worked, what was missing, which
symbols turned out to matter. On success the approved request→symbol pairs are
learned and offered to the next similar session.
"""
