package skill

import (
	"errors"
	"fmt"
)

// Category classifies why an invocation or plan failed, as the execution
// result of seed 001 §2.2.4 reports it.
type Category string

// The error categories of seed 001 §2.2.4.
const (
	ToolFailure        Category = "tool_failure"        // done with ok false
	CircularDependency Category = "circular_dependency" // a plan's tools depend on each other
	Timeout            Category = "timeout"             // the script or plan ran out of time
	InvalidJSON        Category = "invalid_json"        // output or plan broke the protocol
	ProcessError       Category = "process_error"       // could not start, crashed, exited non-zero, no done
)

// Codes of an Error, more precise than its Category.
const (
	CodeDoneNotOK     = "done_not_ok"     // done with ok false and no error event
	CodeExitStatus    = "exit_status"     // exited with a non-zero status
	CodeSignaled      = "signaled"        // killed by a signal it did not get from us
	CodeMissingDone   = "missing_done"    // exited 0 without a done event
	CodeStartFailed   = "start_failed"    // could not be started
	CodeTimeout       = "timeout"         // ran past its timeout
	CodeCanceled      = "canceled"        // the caller gave up
	CodeOutputLimit   = "output_limit"    // wrote more than the output limit
	CodeAssetPath     = "asset_path"      // an asset outside the allowed roots
	CodeDuplicateID   = "duplicate_asset" // an assetId used twice
	CodeNotFound      = "not_found"       // no such skill or script
	CodeSkillDisabled = "skill_disabled"  // the skill may not run now
)

// Error is a failed invocation. Code is one of the Code constants or, for
// a tool failure the script explained, the errorCode of its error event.
type Error struct {
	Skill    string
	Script   string
	Category Category
	Code     string
	Msg      string
	Err      error // the underlying error, if any
}

func (e *Error) Error() string {
	who := e.Script
	if e.Skill != "" {
		who = e.Skill + "/" + e.Script
	}
	return fmt.Sprintf("skill %s: %s", who, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// CategoryOf returns the category of err: an *Error's own, Timeout for a
// deadline, otherwise ProcessError. It returns "" for nil.
func CategoryOf(err error) Category {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Category
	}
	return ProcessError
}
