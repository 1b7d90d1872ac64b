package protocol

import (
	"encoding/json"
	"fmt"
	"io"
)

// Input is the JSON document a script reads on stdin (seed 001 §2.1.4).
// Scripts ignore fields they do not know.
type Input struct {
	RequestID string         `json:"requestId,omitempty"`
	Tool      string         `json:"tool"`
	Operation string         `json:"operation,omitempty"`
	Input     map[string]any `json:"input"`
	// Config is Hearth's addition: the skill's configuration from its
	// config.json, without the values marked x-sensitive (those arrive as
	// environment variables, so they never appear in traces of the input).
	Config map[string]any `json:"config,omitempty"`
}

// MaxInput bounds the stdin document ReadInput accepts: 4 MiB.
const MaxInput = 4 << 20

// ReadInput reads the stdin document of a script.
func ReadInput(r io.Reader) (Input, error) {
	var in Input
	b, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return in, fmt.Errorf("reading tool input from stdin: %w", err)
	}
	if len(b) > MaxInput {
		return in, fmt.Errorf("tool input on stdin is over %d bytes", MaxInput)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, fmt.Errorf("tool input on stdin is not a JSON object: %w", err)
	}
	return in, nil
}
