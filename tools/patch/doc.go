// Package patch provides the reviewed write path of repo-mcp: four tools
// that split a change into steps a person (or a harness) can check, each
// bound to the one before it.
//
//  1. generate_patch (action propose) builds a proposal from edits, a
//     unified diff or an apply_patch envelope on a base commit. Nothing
//     anyone sees changes: the proposal is a commit whose parent is the
//     base, kept under refs/repo-mcp/patches/<patch_id>, so it survives
//     restarts and every replica serving the repository shares it. Its id
//     is that commit's SHA. Proposing the same change again gives the
//     same id.
//  2. preview_diff (read-only, action propose) renders the diff, says
//     whether it applies to a branch or the working tree right now, and
//     returns the approval {patch_id, base, diff_sha256}.
//  3. apply_patch (destructive, action apply) needs the approval's exact
//     diff_sha256: the SHA-256 of the canonical diff (every file, three
//     lines of context). It moves a branch with a compare-and-swap, or
//     writes the working tree all or nothing with a journal that the next
//     start rolls back after a crash. It records each apply under
//     refs/repo-mcp/applied/ and answers a repeat with that record.
//  4. verify_patch (write, action verify) exports the patch's tree, without
//     .git and without what policy hides (secret-pattern test fixtures the
//     workspace's verify_secret_fixtures allow excepted, and redacted from
//     the output), and runs the operator's allowlisted checks on it in a
//     bubblewrap sandbox (see package verify); the result claims each
//     isolation property only when a probe inside the sandbox saw it hold.
//
// # Lenient input, strict result
//
// Models write diffs with wrong hunk counts, shifted line numbers, missing
// a/ b/ prefixes, CRLF, a Markdown fence around them, or in the envelope
// format (*** Begin Patch). generate_patch reads all of these (input.go,
// unified.go, envelope.go) and finds each hunk by its context and removed
// lines (locate.go): where its header says, else the one place in the
// file it matches; a hunk matching several places or none is refused,
// naming them. Every liberty taken is a Correction in the result. What a
// reviewer approves is not the input but the canonical diff rendered from
// the resulting files, which diff_sha256 covers.
//
// # History and pruning
//
// Each patch has a history, a chain of commits at
// refs/repo-mcp/history/<patch_id> that git log reads: generate_patch adds
// a "proposed" event each time it stores the patch or is given the same
// change again, and apply_patch adds one per call that reached the patch,
// whatever its outcome. The newest event's time is the patch's age.
// Proposals are never removed by the tools; the operator's `repo-mcp
// prune --older-than D` deletes the proposal and history refs of patches
// never applied whose newest event is older than D (git gc then collects
// their objects).
//
// Register adds all four:
//
//	reg, _ := workspace.Open(cfg, workspace.Options{})
//	s := server.New(info, server.Options{Authorize: toolkit.Authorizer(reg)})
//	err := patch.Register(s, reg, patch.Options{Verify: verify.Options{SelfHelper: true}})
//
// Every path goes through the workspace layer's normalization, secret
// patterns and the caller's policy, for the tool's action; apply_patch
// checks every path again with the apply action. Paths matching
// Options.Protected (CI workflows by default) need the apply action even
// to be proposed.
//
// # Confirmation by a person
//
// When the client declares that it can ask its user (the elicitation
// capability), apply_patch asks before writing anything, after every other
// check: the question names the patch, the target, each file with its +/-
// counts, and the digest (server.Ask: an input_required result in
// 2026-07-28 sessions, an elicitation request in older ones). The answer
// is bound to the call's arguments, and so to the digest, and expires with
// the question. A client that cannot ask confirms with the digest in its
// arguments, and the host's own approval of the tool call is the review.
// Options.Confirm adds an operator's check of its own after the person's.
package patch

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments
