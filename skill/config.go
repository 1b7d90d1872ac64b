package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// MaxConfigSize bounds config-schema.json and config.json.
const MaxConfigSize = 256 << 10

// ConfigSchema is a skill's references/config-schema.json (seed 001 §3.3):
// a JSON Schema whose top-level properties are the settings, with the
// extensions x-sensitive, x-env-var and x-category.
type ConfigSchema struct {
	Path     string
	Schema   *jsonschema.Schema
	Fields   []Field // the top-level properties, in name order
	resolved *jsonschema.Resolved
}

// Field is one setting, as a settings form shows it.
type Field struct {
	Name        string
	Title       string
	Description string
	Type        string // string, number, integer, boolean, or "" for anything
	Enum        []any
	Default     any
	Minimum     *float64
	Maximum     *float64
	Required    bool
	Sensitive   bool   // x-sensitive, or format "password": mask it, pass it as an environment variable
	EnvVar      string // x-env-var: the environment variable that supplies it when config.json does not
	Category    string // x-category: the group it is shown in
}

// ParseConfigSchema reads a config-schema.json.
func ParseConfigSchema(b []byte) (*ConfigSchema, error) {
	if len(b) > MaxConfigSize {
		return nil, fmt.Errorf("config schema is %d bytes; the limit is %d", len(b), MaxConfigSize)
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %w", err)
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf(`the schema's type is %q; a configuration schema describes an "object"`, s.Type)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	cs := &ConfigSchema{Schema: s, resolved: res}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		f := Field{Name: name, Title: p.Title, Description: p.Description, Type: p.Type, Enum: p.Enum,
			Minimum: p.Minimum, Maximum: p.Maximum, Required: slices.Contains(s.Required, name)}
		if len(p.Default) > 0 {
			if err := json.Unmarshal(p.Default, &f.Default); err != nil {
				return nil, fmt.Errorf("property %s: default: %w", name, err)
			}
		}
		f.Sensitive = p.Format == "password"
		if v, ok := p.Extra["x-sensitive"].(bool); ok && v {
			f.Sensitive = true
		}
		f.EnvVar, _ = p.Extra["x-env-var"].(string)
		f.Category, _ = p.Extra["x-category"].(string)
		if f.EnvVar != "" && !envName.MatchString(f.EnvVar) {
			return nil, fmt.Errorf("property %s: x-env-var %q is not an environment variable name", name, f.EnvVar)
		}
		cs.Fields = append(cs.Fields, f)
	}
	return cs, nil
}

var (
	envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	envRef  = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
)

// Config is a skill's effective configuration: config.json with ${VAR}
// references substituted, unset fields taken from their x-env-var or their
// default.
type Config struct {
	Values    map[string]any
	Sensitive map[string]string // field name → environment variable it is passed in
	Missing   []string          // variables of ${VAR} references that are not set; they became ""
	Problems  []string          // how the configuration fails its schema
}

// ConfigPath is where the skill's saved configuration lives.
func (s *Skill) ConfigPath() string { return filepath.Join(s.Dir, "config.json") }

// LoadConfig reads the skill's effective configuration. lookup reads the
// environment (os.LookupEnv if nil). The error is for a config.json that
// cannot be read or is not a JSON object; a configuration that fails its
// schema is returned with Problems, so the script can decide.
func (s *Skill) LoadConfig(lookup func(string) (string, bool)) (Config, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	raw := map[string]any{}
	b, err := readLimited(s.ConfigPath(), MaxConfigSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Config{}, err
	default:
		if err := json.Unmarshal(b, &raw); err != nil {
			return Config{}, fmt.Errorf("%s is not a JSON object: %w", s.ConfigPath(), err)
		}
		if raw == nil {
			raw = map[string]any{}
		}
	}
	return s.Config.effective(raw, lookup), nil
}

// effective applies substitution, environment variables and defaults, and
// validates. A nil schema passes config.json through.
func (cs *ConfigSchema) effective(raw map[string]any, lookup func(string) (string, bool)) Config {
	c := Config{Values: map[string]any{}, Sensitive: map[string]string{}}
	missing := map[string]bool{}
	for k, v := range raw {
		c.Values[k] = substitute(v, lookup, missing)
	}
	if cs != nil {
		for _, f := range cs.Fields {
			if _, ok := c.Values[f.Name]; !ok {
				if v, ok := lookupEnvVar(f, lookup); ok {
					c.Values[f.Name] = v
				} else if f.Default != nil {
					c.Values[f.Name] = f.Default
				}
			}
			if f.Sensitive {
				c.Sensitive[f.Name] = f.envVar()
			}
		}
		if err := cs.resolved.Validate(c.Values); err != nil {
			c.Problems = append(c.Problems, schemaMessage(err))
		}
	}
	c.Missing = slices.Sorted(maps.Keys(missing))
	return c
}

// envVar is the variable a sensitive field is passed to the script in.
func (f Field) envVar() string {
	if f.EnvVar != "" {
		return f.EnvVar
	}
	var b strings.Builder
	b.WriteString("HEARTH_CONFIG_")
	for i, r := range f.Name {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z':
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// lookupEnvVar reads a field from its x-env-var, converted to its type.
func lookupEnvVar(f Field, lookup func(string) (string, bool)) (any, bool) {
	if f.EnvVar == "" {
		return nil, false
	}
	s, ok := lookup(f.EnvVar)
	if !ok {
		return nil, false
	}
	switch f.Type {
	case "number", "integer":
		if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return n, true
		}
	case "boolean":
		if v, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return v, true
		}
	}
	return s, true
}

// substitute replaces ${VAR} in the strings of v.
func substitute(v any, lookup func(string) (string, bool), missing map[string]bool) any {
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, "${") {
			return x
		}
		return envRef.ReplaceAllStringFunc(x, func(ref string) string {
			name := ref[2 : len(ref)-1]
			val, ok := lookup(name)
			if !ok {
				missing[name] = true
			}
			return val
		})
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = substitute(e, lookup, missing)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = substitute(e, lookup, missing)
		}
		return a
	}
	return v
}

// Public returns the values that are not sensitive, for the stdin document.
func (c Config) Public() map[string]any {
	if len(c.Values) == 0 {
		return nil
	}
	m := map[string]any{}
	for k, v := range c.Values {
		if _, secret := c.Sensitive[k]; !secret {
			m[k] = v
		}
	}
	return m
}

// Env returns the sensitive values as "VAR=value" environment entries.
func (c Config) Env() []string {
	var env []string
	for _, k := range slices.Sorted(maps.Keys(c.Sensitive)) {
		v, ok := c.Values[k]
		if !ok || v == nil {
			continue
		}
		s, isString := v.(string)
		if !isString {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		env = append(env, c.Sensitive[k]+"="+s)
	}
	return env
}

// SaveConfig validates values against the skill's schema (after ${VAR}
// substitution) and writes them, as given, to config.json, readable only
// by the owner since it may hold keys.
func (s *Skill) SaveConfig(values map[string]any, lookup func(string) (string, bool)) error {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	c := s.Config.effective(values, lookup)
	if len(c.Problems) > 0 {
		return fmt.Errorf("skill %s: configuration not saved: %s", s.Name, strings.Join(c.Problems, "; "))
	}
	b, err := json.MarshalIndent(values, "", "  ")
	if err != nil {
		return fmt.Errorf("skill %s: encoding configuration: %w", s.Name, err)
	}
	return writeFileAtomic(s.ConfigPath(), append(b, '\n'), 0o600)
}

func writeFileAtomic(path string, b []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.json")
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}

// schemaMessage shortens a jsonschema validation error to its last, most
// specific part, with the schema path read as a property path.
func schemaMessage(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		msg = msg[i+len("validating "):]
	}
	path, rest, ok := strings.Cut(msg, ": ")
	if !ok {
		return msg
	}
	path = strings.ReplaceAll(path, "/properties/", ".")
	path = strings.ReplaceAll(path, "/items", "[]")
	path = strings.TrimPrefix(path, ".")
	if path == "root" || path == "" {
		return rest
	}
	return path + ": " + rest
}
