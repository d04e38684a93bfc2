// Package config reads the harness's YAML configuration: which tool sources
// exist, which of their tools the model may see (the allowlist), and what
// each tool can do (its effect). It is the operator's word; nothing a server
// says about itself can widen it.
//
//	cfg, err := config.Load("harness.yaml")
//
// Decoding is strict: unknown keys, duplicate keys, unknown effects and
// extra documents are errors. A tool listed without an effect is
// destructive. Relative paths are resolved against the file's directory.
//
//	state_dir: /var/lib/repo-harness    # runs, event logs, artifacts, pins (default ~/.local/state/repo-harness)
//	summary_bytes: 16384                # what a model gets of one result
//	local:                              # the built-in source "local"
//	  workspace: .
//	  tools:
//	    list_files: {effect: read_only}
//	    read_file:  {effect: read_only}
//	    write_note: {effect: write}
//	servers:
//	  repo:                             # source "mcp.repo"
//	    command: [repo-mcp, serve, --workspace, "repo=."]
//	    inherit: [HOME, PATH]
//	    workspace: .                    # root for the harness's path checks
//	    approve: explicit               # or first_use: pin definitions on first sight
//	    tools:
//	      read_file: {effect: read_only, paths: [path]}
//	  team:                             # source "mcp.team": a server over Streamable HTTP
//	    url: https://mcp.example.com/mcp  # instead of command (exactly one of them)
//	    headers:                        # sent with every request; never logged
//	      Authorization: "Bearer ${REPO_MCP_TOKEN}"  # ${NAME}: from the harness's environment
//	    tools:
//	      read_file: {effect: read_only, paths: [path]}
//	model:
//	  kind: scripted                    # or anthropic, openai
package config
