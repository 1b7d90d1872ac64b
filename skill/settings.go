package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/hearth-rpg/hearth"
)

// SavedConfig is config.json as written, before substitution and
// defaults; empty when there is none.
func (s *Skill) SavedConfig() (map[string]any, error) {
	raw := map[string]any{}
	b, err := readLimited(s.ConfigPath(), MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return raw, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return nil, hearth.Errorf(hearth.Invalid, "%s is not a JSON object; fix or delete it", s.ConfigPath())
	}
	return raw, nil
}

// Configure applies settings written key=value to the saved configuration
// and saves it (seed 001 §3.3): each value is read as its field's type,
// checked against the schema, and the whole configuration validated
// before anything is written. "key=" removes a setting, so its default or
// environment variable applies again. It returns the saved values.
func (s *Skill) Configure(assignments []string, lookup func(string) (string, bool)) (map[string]any, error) {
	if s.Config == nil || len(s.Config.Fields) == 0 {
		return nil, hearth.Errorf(hearth.Invalid, "skill %s has no settings (no references/config-schema.json properties)", s.Name)
	}
	values, err := s.SavedConfig()
	if err != nil {
		return nil, err
	}
	for _, a := range assignments {
		key, text, ok := strings.Cut(a, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, hearth.Errorf(hearth.Invalid, "%q is not a setting: write key=value, such as %s=%s", a, s.Config.Fields[0].Name, example(s.Config.Fields[0]))
		}
		f, ok := s.Config.field(key)
		if !ok {
			return nil, hearth.Errorf(hearth.Invalid, "skill %s has no setting %q; its settings are %s", s.Name, key, strings.Join(s.Config.names(), ", "))
		}
		if text == "" {
			delete(values, key)
			continue
		}
		v, err := f.parse(text)
		if err != nil {
			return nil, hearth.Errorf(hearth.Invalid, "%s: %v", key, err)
		}
		values[key] = v
	}
	if err := s.SaveConfig(values, lookup); err != nil {
		return nil, hearth.Errorf(hearth.Invalid, "%v", err)
	}
	return values, nil
}

func (cs *ConfigSchema) field(name string) (Field, bool) {
	for _, f := range cs.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

func (cs *ConfigSchema) names() []string {
	var n []string
	for _, f := range cs.Fields {
		n = append(n, f.Name)
	}
	return n
}

// parse reads a value written on a command line as the field's type. A
// value with ${VAR} stays a string, to be substituted when the skill runs.
func (f Field) parse(text string) (any, error) {
	if strings.Contains(text, "${") && envRef.MatchString(text) {
		return text, nil
	}
	var v any = text
	switch f.Type {
	case "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", text)
		}
		v = b
	case "integer":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", text)
		}
		v = float64(n)
	case "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		v = n
	case "array", "object":
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return nil, fmt.Errorf("%q is not JSON (%v)", text, err)
		}
	}
	if len(f.Enum) > 0 && !slices.ContainsFunc(f.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		return nil, fmt.Errorf("%q is not allowed; choose one of %s", text, enumText(f.Enum))
	}
	if n, ok := v.(float64); ok {
		if f.Minimum != nil && n < *f.Minimum {
			return nil, fmt.Errorf("%v is below the minimum %v", n, *f.Minimum)
		}
		if f.Maximum != nil && n > *f.Maximum {
			return nil, fmt.Errorf("%v is above the maximum %v", n, *f.Maximum)
		}
	}
	return v, nil
}

// Describe is how the field is written: its type, what it allows and its
// default, e.g. "string: terse|vivid|poetic (default vivid)".
func (f Field) Describe() string {
	var b strings.Builder
	b.WriteString(cmpOrStr(f.Type, "any"))
	switch {
	case len(f.Enum) > 0:
		b.WriteString(": " + enumText(f.Enum))
	case f.Minimum != nil && f.Maximum != nil:
		fmt.Fprintf(&b, ": %v..%v", *f.Minimum, *f.Maximum)
	}
	if f.Default != nil {
		d, _ := json.Marshal(f.Default)
		fmt.Fprintf(&b, " (default %s)", d)
	}
	if f.Required {
		b.WriteString(", required")
	}
	if f.Sensitive {
		b.WriteString(", secret")
	}
	if f.EnvVar != "" {
		b.WriteString(", or $" + f.EnvVar)
	}
	return b.String()
}

func enumText(enum []any) string {
	var s []string
	for _, e := range enum {
		s = append(s, fmt.Sprint(e))
	}
	return strings.Join(s, "|")
}

func example(f Field) string {
	switch {
	case len(f.Enum) > 0:
		return fmt.Sprint(f.Enum[0])
	case f.Type == "boolean":
		return "true"
	case f.Type == "number" || f.Type == "integer":
		return "1"
	}
	return "value"
}

func cmpOrStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
