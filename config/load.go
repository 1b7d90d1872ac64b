package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
)

// EnvPrefix starts every environment variable Load reads. The double
// underscore separates levels, so single underscores stay inside key names:
// HEARTH__LIMITS__RATE_LIMIT_RPM is limits.rate_limit_rpm.
const EnvPrefix = "HEARTH__"

// maxFileBytes bounds the configuration file; a larger one is almost
// certainly the wrong file.
const maxFileBytes = 1 << 20

// Source says where the configuration came from, for logs and for
// "hearth config show". It holds names only, never values.
type Source struct {
	File string   // the file read; empty when none
	Env  []string // the HEARTH__ variables applied, sorted
	// Origins maps every key that is not at its default to where its value
	// came from: "FILE:LINE", an environment variable's name, or what a
	// program set with Set (a command-line flag, say).
	Origins map[string]string
	// Notices are things the user should change although the
	// configuration loaded: an old file read from its old place, say.
	Notices []string
}

// Origin says where key's value came from; "default" when nothing set it.
func (s Source) Origin(key string) string {
	if o := s.Origins[key]; o != "" {
		return o
	}
	return "default"
}

// Set records that key was set by origin ("flag --port"), after Load.
func (s *Source) Set(key, origin string) {
	if s.Origins == nil {
		s.Origins = map[string]string{}
	}
	s.Origins[key] = origin
}

func (s Source) String() string {
	var parts []string
	if s.File != "" {
		parts = append(parts, "file "+s.File)
	}
	if len(s.Env) > 0 {
		parts = append(parts, "environment "+strings.Join(s.Env, ", "))
	}
	if len(parts) == 0 {
		return "defaults"
	}
	return "defaults, " + strings.Join(parts, ", ")
}

// Load returns the configuration: defaults, overlaid by the file, overlaid
// by the environment, validated. path names the file, which must then
// exist; empty means $HEARTH_CONFIG, else config.toml (or config.yaml) in
// the user's configuration directory if it is there (see DefaultPath).
// Files ending in .yaml or .yml are YAML, others TOML. environ is the
// environment as os.Environ gives it; HEARTH__ variables set keys, and
// HEARTH_DATA sets storage.data_dir when nothing else does.
//
// Files from before one configuration served every command are still
// read: ./hearth.toml, and the model file with roles: at its top; each
// adds a notice to Source saying how to move it.
//
// Every problem is reported, not just the first, each as a *KeyError
// naming the key, the file or variable it came from and the expected form.
func Load(path string, environ []string) (*Config, Source, error) {
	file, explicit, notices := locate(path, environ)
	data, err := readFile(file)
	switch {
	case file == "":
	case err == nil:
	case !explicit && errors.Is(err, fs.ErrNotExist):
		file = ""
	default:
		return nil, Source{Origins: map[string]string{}}, fmt.Errorf("config: %w", err)
	}
	return parse(file, data, notices, environ)
}

// parse layers the file's bytes (none when file is "") and the
// environment over the defaults; Load without the file system, so the
// fuzz target reaches the parsers many thousand times a minute.
func parse(file string, data []byte, notices, environ []string) (*Config, Source, error) {
	src := Source{Origins: map[string]string{}}
	sch := newSchema()
	k := koanf.New(".")
	if err := k.Load(confmap.Provider(sch.values(Default()), "."), nil); err != nil {
		return nil, src, fmt.Errorf("config: load defaults: %w", err)
	}
	origin := map[string]string{}
	var errs []error

	if file != "" {
		src.File = file
		src.Notices = append(src.Notices, notices...)
		vals, kerrs, legacy, err := sch.fromFile(file, data)
		if err != nil {
			return nil, src, err
		}
		if legacy {
			src.Notices = append(src.Notices, fmt.Sprintf("%s has the old layout (roles: at the top); it was read, but write the new one with 'hearth config init --from %s' (roles.NAME becomes models.NAME)", file, file))
		}
		errs = append(errs, kerrs...)
		for key := range vals {
			origin[key] = file
			if n := keyLine(data, key, isYAML(file)); n > 0 {
				origin[key] = fmt.Sprintf("%s:%d", file, n)
			}
		}
		if err := k.Load(confmap.Provider(vals, "."), nil); err != nil {
			return nil, src, fmt.Errorf("config %s: %w", file, err)
		}
	}

	vals, names, kerrs := sch.fromEnv(environ)
	errs = append(errs, kerrs...)
	for key, name := range names {
		origin[key] = name
		src.Env = append(src.Env, name)
	}
	sort.Strings(src.Env)
	if err := k.Load(confmap.Provider(vals, "."), nil); err != nil {
		return nil, src, fmt.Errorf("config: environment: %w", err)
	}
	if len(errs) > 0 {
		return nil, src, errors.Join(errs...)
	}

	var c Config
	if err := k.UnmarshalWithConf("", &c, koanf.UnmarshalConf{Tag: "toml"}); err != nil {
		return nil, src, fmt.Errorf("config: %w", err)
	}
	if c.Storage.DataDir == "" {
		if dir, from, err := DefaultDataDir(environ); err == nil {
			c.Storage.DataDir = dir
			if from != "default" {
				origin["storage.data_dir"] = from
			}
		}
	}
	for key, o := range origin {
		src.Origins[key] = o
	}
	for _, p := range c.problems() {
		p.Source = origin[p.Key]
		errs = append(errs, p)
	}
	if len(errs) > 0 {
		return nil, src, errors.Join(errs...)
	}
	return &c, src, nil
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a configuration file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes; is it the configuration file?", name, maxFileBytes)
	}
	return b, nil
}

// parser is koanf's Parser: the YAML one from koanf, a TOML one over
// BurntSushi/toml because its errors carry line numbers.
type parser interface {
	Unmarshal([]byte) (map[string]any, error)
}

type tomlParser struct{}

func (tomlParser) Unmarshal(b []byte) (map[string]any, error) {
	m := map[string]any{}
	_, err := toml.Decode(string(b), &m)
	return m, err
}

// schema describes Config's keys, derived from its toml tags.
type schema struct {
	leaves   map[string]leaf
	sections map[string][]string // section → its keys, in field order
}

type leaf struct {
	index  []int
	typ    reflect.Type
	secret bool
	// url marks a URL whose password is the secret (secret:"password"):
	// shown with the password masked rather than not at all.
	url bool
	def any // the default value
}

var durationType = reflect.TypeFor[time.Duration]()

func newSchema() *schema {
	s := &schema{leaves: map[string]leaf{}, sections: map[string][]string{}}
	s.walk(reflect.TypeFor[Config](), "", nil)
	def := reflect.ValueOf(Default()).Elem()
	for key, l := range s.leaves {
		l.def = def.FieldByIndex(l.index).Interface()
		s.leaves[key] = l
	}
	return s
}

func (s *schema) walk(t reflect.Type, prefix string, index []int) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("toml")
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		section := strings.TrimSuffix(prefix, ".")
		s.sections[section] = append(s.sections[section], name)
		idx := append(slices.Clip(index), i)
		if f.Type.Kind() == reflect.Struct {
			s.walk(f.Type, key+".", idx)
			continue
		}
		s.leaves[key] = leaf{index: idx, typ: f.Type, secret: f.Tag.Get("secret") != "", url: f.Tag.Get("secret") == "password"}
	}
}

// values flattens c into key → value.
func (s *schema) values(c *Config) map[string]any {
	v := reflect.ValueOf(c).Elem()
	out := make(map[string]any, len(s.leaves))
	for key, l := range s.leaves {
		f := v.FieldByIndex(l.index)
		if f.Kind() == reflect.Slice {
			f = reflect.AppendSlice(reflect.MakeSlice(f.Type(), 0, f.Len()), f)
		}
		out[key] = f.Interface()
	}
	return out
}

func isYAML(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// fromFile returns the file's values by key and a *KeyError for each bad
// one, naming the file and line; legacy reports the old model layout.
func (s *schema) fromFile(name string, data []byte) (_ map[string]any, _ []error, legacy bool, _ error) {
	var p parser = tomlParser{}
	if isYAML(name) {
		p = yaml.Parser()
	}
	raw, err := p.Unmarshal(data)
	if err != nil {
		return nil, nil, false, fmt.Errorf("config %s: %w", name, err)
	}
	raw, legacy = fromLegacy(raw)
	fk := koanf.New(".")
	if err := fk.Load(confmap.Provider(raw, ""), nil); err != nil {
		return nil, nil, false, fmt.Errorf("config %s: %w", name, err)
	}
	at := func(key string) string {
		if n := keyLine(data, key, isYAML(name)); n > 0 {
			return fmt.Sprintf("%s:%d", name, n)
		}
		return name
	}
	flat := fk.All()
	keys := make([]string, 0, len(flat))
	for key := range flat {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	out := map[string]any{}
	var errs []error
	for _, key := range keys {
		v := flat[key]
		l, ok := s.leaves[key]
		if !ok {
			if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
				if _, isSection := s.sections[key]; isSection {
					continue // an empty table
				}
			}
			errs = append(errs, &KeyError{Key: key, Source: at(key), Problem: s.unknown(key, v, false)})
			continue
		}
		conv, err := convert(v, l, false)
		if err != nil {
			errs = append(errs, &KeyError{Key: key, Source: at(key), Problem: err.Error()})
			continue
		}
		out[key] = conv
	}
	return out, errs, legacy, nil
}

// fromEnv returns the values of HEARTH__ variables and, per key, the
// variable it came from. Like os.Getenv, the first of duplicates counts.
func (s *schema) fromEnv(environ []string) (map[string]any, map[string]string, []error) {
	out := map[string]any{}
	names := map[string]string{}
	var errs []error
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		key := strings.ToLower(strings.ReplaceAll(name[len(EnvPrefix):], "__", "."))
		if _, dup := names[key]; dup {
			continue
		}
		l, ok := s.leaves[key]
		if !ok {
			errs = append(errs, &KeyError{Key: key, Source: name, Problem: s.unknown(key, val, true)})
			continue
		}
		names[key] = name
		conv, err := convert(val, l, true)
		if err != nil {
			errs = append(errs, &KeyError{Key: key, Source: name, Problem: err.Error()})
			continue
		}
		out[key] = conv
	}
	return out, names, errs
}

// unknown explains an unknown key and lists what is known around it.
func (s *schema) unknown(key string, v any, env bool) string {
	if kids, ok := s.sections[key]; ok && key != "" {
		return fmt.Sprintf("is a section, not a value; its keys are %s", strings.Join(kids, ", "))
	}
	parent := key
	for {
		i := strings.LastIndexByte(parent, '.')
		if i < 0 {
			break
		}
		parent = parent[:i]
		if _, ok := s.leaves[parent]; ok {
			return fmt.Sprintf("unknown key: %s is a value, not a section", parent)
		}
		if kids, ok := s.sections[parent]; ok {
			return fmt.Sprintf("unknown key; [%s] has %s", parent, strings.Join(kids, ", "))
		}
	}
	hint := ""
	if env {
		hint = " (levels are separated by a double underscore: HEARTH__SERVER__PORT)"
	}
	return fmt.Sprintf("unknown key; the sections are %s%s", strings.Join(s.sections[""], ", "), hint)
}

// convert turns a parsed file value or an environment string into the
// field's type, or says which form was expected.
func convert(v any, l leaf, env bool) (any, error) {
	if v == nil {
		return nil, errors.New("has no value (null); give one, or remove the key to keep the default")
	}
	got := describe(v, l.secret)
	switch {
	case l.typ == durationType:
		str, ok := v.(string)
		d, err := time.ParseDuration(strings.TrimSpace(str))
		if !ok || err != nil {
			if env {
				return nil, fmt.Errorf("want a duration in Go syntax such as 90s or 168h (default %s), got %s", l.def, got)
			}
			return nil, fmt.Errorf("want a duration in Go syntax as a quoted string such as \"90s\" or \"168h\" (default \"%s\"), got %s", l.def, got)
		}
		return d, nil
	case l.typ.Kind() == reflect.String:
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string (put the value in quotes), got %s", got)
		}
		return reflect.ValueOf(str).Convert(l.typ).Interface(), nil
	case l.typ.Kind() == reflect.Bool:
		b, ok := v.(bool)
		if str, isStr := v.(string); env && isStr {
			var err error
			b, err = strconv.ParseBool(strings.TrimSpace(str))
			ok = err == nil
		}
		if !ok {
			return nil, fmt.Errorf("want true or false, got %s", got)
		}
		return b, nil
	case l.typ.Kind() == reflect.Int || l.typ.Kind() == reflect.Int64:
		n, ok := toInt(v, env)
		if ok && l.typ.Kind() == reflect.Int && (n < math.MinInt || n > math.MaxInt) {
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("want a whole number (default %v), got %s", l.def, got)
		}
		return reflect.ValueOf(n).Convert(l.typ).Interface(), nil
	case l.typ.Kind() == reflect.Slice && l.typ.Elem().Kind() == reflect.String:
		out := []string{}
		switch v := v.(type) {
		case string:
			if !env {
				break
			}
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
			return out, nil
		case []any:
			for _, e := range v {
				str, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("want a list of strings, but an entry is %s", describe(e, l.secret))
				}
				out = append(out, str)
			}
			return out, nil
		}
		return nil, fmt.Errorf("want a list of strings such as [\"http://localhost:30000\"], got %s", got)
	}
	return nil, fmt.Errorf("unsupported field type %s", l.typ)
}

func toInt(v any, env bool) (int64, bool) {
	if str, ok := v.(string); ok {
		if !env {
			return 0, false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(str), 10, 64)
		return n, err == nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		u := rv.Uint()
		return int64(u), u <= math.MaxInt64
	}
	return 0, false
}

// describe names a value for an error message; a secret's value is never
// shown, only its kind.
func describe(v any, secret bool) string {
	switch v := v.(type) {
	case nil:
		return "nothing (null)"
	case string:
		if secret {
			return "a string"
		}
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date"
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if secret {
			return "a number"
		}
		return fmt.Sprintf("the number %v", v)
	}
	return fmt.Sprintf("a value of type %T", v)
}
