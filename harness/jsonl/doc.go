// Package jsonl is the harness's line protocol: commands in, one JSON
// object per line (submit, approve, deny, cancel, reconcile, resume,
// status, wait, tools, approve_tool, audit), and out, responses and every
// event of every run as it reaches the disk. PROTOCOL.md in the harness
// folder describes each message and shows a session.
//
//	w := jsonl.NewWriter(os.Stdout)
//	h, err := harness.New(ctx, harness.Options{Config: cfg, Observe: w.Event})
//	err = jsonl.Serve(ctx, h, os.Stdin, w)   // until stdin ends
//	h.Close()                                // waits for runs to come to rest
package jsonl
