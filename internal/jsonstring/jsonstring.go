package jsonstring

import (
	"encoding/json"
	"strings"
)

// Marshal is json.Marshal's text as a string, in one allocation of the
// text's size: the same escapes (HTML, bad UTF-8), no trailing newline.
func Marshal(v any) (string, error) {
	var b strings.Builder
	// An Encoder escapes as Marshal does, and adds a newline.
	if err := json.NewEncoder(&b).Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
