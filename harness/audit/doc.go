// Package audit answers, for every tool call the harness made, who called
// what, with which arguments, when, for how long, with what result and
// whose approval. It reads the runs' event logs and nothing else, so the
// audit cannot disagree with what the harness recorded.
//
//	recs, err := audit.Run(runsDir, "r20261130T004500-ab12cd34")
//	recs, err := audit.Query(runsDir, audit.Filter{Source: "mcp.repo", State: "unknown"})
//	audit.Format(os.Stdout, recs)
package audit
