// Package model puts every model the harness can drive behind one
// interface: given the conversation so far and the tool table, a Model
// answers with text, tool calls, or both.
//
//	m := model.NewScripted(model.DemoPlan(nil))       // offline, deterministic
//	m := model.NewAnthropic(model.HTTPConfig{BaseURL: ..., APIKey: ..., Model: ...})
//	m := model.NewOpenAI(model.HTTPConfig{BaseURL: "http://localhost:8080/v1", Model: ...})
//	reply, err := m.Next(ctx, model.Request{System: ..., Messages: msgs, Tools: specs})
//
// The conversation is a list of Messages: the user's task, the model's
// replies (text and ToolCalls), and one ToolResult for every tool call,
// in the next message. CheckPairs enforces that last rule; both HTTP
// adapters refuse to send a conversation that breaks it.
//
// The scripted model needs no network and no weights: it follows a Plan
// step by step, deciding its step from the conversation alone (so a run
// resumed from its event log continues where it stopped), and answers
// from the tool results it was given. DemoPlan is the seed's task: list the
// files, read README.md, summarize it in three sentences taken from it.
package model
