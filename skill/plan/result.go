package plan

import (
	"errors"
	"time"

	"github.com/hearth-rpg/hearth/skill"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// ToolState is how a tool ended.
type ToolState string

// Tool states of seed 001 §2.2.4.
const (
	Succeeded ToolState = "success"
	Failed    ToolState = "failed"
	Skipped   ToolState = "skipped"
	TimedOut  ToolState = "timeout"
)

// ErrorInfo is an error as the execution trace records it.
type ErrorInfo struct {
	Code     string         `json:"code"`
	Message  string         `json:"message"`
	Category skill.Category `json:"category"`
}

// errorInfo records err; *skill.Error keeps its code and category.
func errorInfo(err error) *ErrorInfo {
	if err == nil {
		return nil
	}
	var e *skill.Error
	if errors.As(err, &e) {
		return &ErrorInfo{Code: e.Code, Message: e.Error(), Category: e.Category}
	}
	return &ErrorInfo{Code: "error", Message: err.Error(), Category: skill.ProcessError}
}

// Result is the execution trace of a plan (seed 001 §2.2.4).
type Result struct {
	PlanID         string   `json:"planId"`
	Success        bool     `json:"success"`   // every required tool succeeded
	CanReplan      bool     `json:"canReplan"` // a new plan is worth asking for
	FailedTools    []string `json:"failedTools"`
	DisabledSkills []string `json:"disabledSkills"` // skills not to use in the next plan
	// ToolResults are in the order the tools were scheduled (dependency
	// order, plan order among equals), which is also the order their
	// events are aggregated in.
	ToolResults      []ToolResult   `json:"toolResults"`
	AggregatedState  map[string]any `json:"aggregatedState"` // the session state after every state_patch
	AggregatedAssets []AssetRecord  `json:"aggregatedAssets"`
	ExecutionTimeMs  int64          `json:"executionTimeMs"`
	AttemptNumber    int            `json:"attemptNumber"`

	// Error is Hearth's addition: why the plan as a whole failed (invalid,
	// circular, out of time), when no single tool explains it.
	Error *ErrorInfo `json:"error,omitempty"`
	// MergedPatch is Hearth's addition: every applied state_patch composed
	// into one (see ComposePatch), for mapping onto the game's state.
	MergedPatch map[string]any `json:"mergedPatch,omitempty"`
}

// ToolResult is one tool's part of the trace.
type ToolResult struct {
	ToolID          string           `json:"toolId"`
	Skill           string           `json:"skill"`
	State           ToolState        `json:"state"`
	Required        bool             `json:"required"`
	Output          string           `json:"output,omitempty"` // the done event's summary
	Events          []protocol.Event `json:"events"`           // of the last attempt
	ExecutionTimeMs int64            `json:"executionTimeMs"`  // all attempts and the waits between them
	RetryCount      int              `json:"retryCount"`
	Error           *ErrorInfo       `json:"error,omitempty"`
	ExitCode        int              `json:"exitCode"`
	Stderr          string           `json:"stderr,omitempty"` // diagnostics: for the GM and logs, not players
	StartedAt       time.Time        `json:"startedAt,omitzero"`
	FinishedAt      time.Time        `json:"finishedAt,omitzero"`
}

// AssetRecord is an asset a tool created, as the gallery lists it.
type AssetRecord struct {
	ToolID    string         `json:"toolId"`
	Skill     string         `json:"skill"`
	AssetID   string         `json:"assetId"`
	Kind      string         `json:"kind"`
	MediaType string         `json:"mediaType"`
	Path      string         `json:"path"` // absolute, checked to be inside the skill's data or campaign directory
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// ToolEvent is an event with the tool that emitted it.
type ToolEvent struct {
	ToolID  string
	Skill   string
	Attempt int
	Event   protocol.Event
}

// Events returns the events of the tools that succeeded, in aggregation
// order: log, ui_event and error events in the order the UI should show
// them.
func (r *Result) Events() []ToolEvent {
	var out []ToolEvent
	for _, tr := range r.ToolResults {
		if tr.State != Succeeded {
			continue
		}
		for _, e := range tr.Events {
			out = append(out, ToolEvent{ToolID: tr.ToolID, Skill: tr.Skill, Attempt: tr.RetryCount + 1, Event: e})
		}
	}
	return out
}

// UIEvents returns the ui_event events of the tools that succeeded, in
// order.
func (r *Result) UIEvents() []*protocol.UIEvent {
	var out []*protocol.UIEvent
	for _, e := range r.Events() {
		if u, ok := e.Event.(*protocol.UIEvent); ok {
			out = append(out, u)
		}
	}
	return out
}

// Tool returns the result of the tool with the id, or nil.
func (r *Result) Tool(id string) *ToolResult {
	for i := range r.ToolResults {
		if r.ToolResults[i].ToolID == id {
			return &r.ToolResults[i]
		}
	}
	return nil
}
