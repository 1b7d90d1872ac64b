package config

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Write prints c as TOML that Load reads back. Secrets (fields tagged
// secret:"true") are printed as "****" when set, never their value.
func (c *Config) Write(w io.Writer) error {
	cp := *c
	v := reflect.ValueOf(&cp).Elem()
	for _, l := range newSchema().leaves {
		f := v.FieldByIndex(l.index)
		switch {
		case l.url:
			f.SetString(MaskURL(f.String()))
		case l.secret && f.Kind() == reflect.String && f.Len() > 0:
			f.SetString(mask)
		case l.secret:
			// A secret of another kind cannot be masked by value: drop it.
			f.SetZero()
		case f.Kind() == reflect.Slice && f.IsNil():
			f.Set(reflect.MakeSlice(f.Type(), 0, 0)) // print the key, as "[]"
		}
	}
	if _, err := io.WriteString(w, "# Effective Hearth configuration; secrets are masked.\n\n"); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	enc := toml.NewEncoder(w)
	enc.Indent = ""
	if err := enc.Encode(cp); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// Show prints c as TOML with where each value came from beside it:
// "default", the file and line, the environment variable or the flag.
// Secrets are masked. It is what "hearth config show" prints.
func (c *Config) Show(w io.Writer, src Source) error {
	sch := newSchema()
	v := reflect.ValueOf(c).Elem()
	var b strings.Builder
	b.WriteString("# Effective Hearth configuration; secrets are masked.\n")
	if src.File != "" {
		fmt.Fprintf(&b, "# file: %s\n", src.File)
	}
	sch.eachLeaf(&b, func(name, key string, l leaf) {
		fmt.Fprintf(&b, "%s = %s  # %s\n", name, showValue(v.FieldByIndex(l.index), l), src.Origin(key))
	})
	_, err := io.WriteString(w, b.String())
	return err
}

// showValue formats a leaf's value as TOML, masking secrets.
func showValue(f reflect.Value, l leaf) string {
	if l.url {
		return strconv.Quote(MaskURL(f.String()))
	}
	return tomlValue(f, l.secret)
}

// tomlValue formats one value as TOML; a set secret shows as "****".
func tomlValue(f reflect.Value, secret bool) string {
	if secret {
		if f.Kind() == reflect.String && f.Len() > 0 {
			return strconv.Quote(mask)
		}
		return `""`
	}
	if f.Type() == durationType {
		return strconv.Quote(time.Duration(f.Int()).String())
	}
	switch f.Kind() {
	case reflect.String:
		return strconv.Quote(f.String())
	case reflect.Bool:
		return strconv.FormatBool(f.Bool())
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(f.Int(), 10)
	case reflect.Slice:
		parts := make([]string, f.Len())
		for i := range parts {
			parts[i] = strconv.Quote(f.Index(i).String())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return strconv.Quote(fmt.Sprint(f.Interface()))
}

// Template is a commented configuration file for "hearth config init":
// every key with its default, commented out, except the values of c that
// differ from the defaults (imported from an older file, say), which are
// set. Secrets are never written: their keys stay commented out with a
// note to fill them in or use api_key_env.
func (c *Config) Template() string {
	sch := newSchema()
	v := reflect.ValueOf(c).Elem()
	def := reflect.ValueOf(Default()).Elem()
	var b strings.Builder
	b.WriteString(`# Hearth configuration. Every command reads it: hearth play, serve, mcp,
# ingest, models, replay. Values here override the built-in defaults shown
# commented out; HEARTH__SECTION__KEY environment variables override this
# file (HEARTH__SERVER__PORT=9000), and command-line flags override both.
# 'hearth config show' prints the result and where each value came from.
#
# Model roles live under [models.NAME]: narrator, interpreter, planner,
# summariser, embedder, assistant, vision. A role without a provider uses
# the narrator's; vision stands alone. Keep API keys out of this file: name
# the environment variable with api_key_env, or a file with api_key_file.
`)
	sch.eachLeaf(&b, func(name, key string, l leaf) {
		f, d := v.FieldByIndex(l.index), def.FieldByIndex(l.index)
		switch {
		case l.url && f.String() != MaskURL(f.String()):
			fmt.Fprintf(&b, "# %s = %s  # the password is masked: put it back, or set HEARTH__DATABASE__URL\n", name, showValue(f, l))
		case l.secret && !l.url:
			fmt.Fprintf(&b, "# %s = \"\"  # better: api_key_env or api_key_file\n", name)
		case reflect.DeepEqual(f.Interface(), d.Interface()) || (f.Kind() == reflect.Slice && f.Len() == 0 && d.Len() == 0):
			fmt.Fprintf(&b, "# %s = %s\n", name, tomlValue(d, false))
		default:
			fmt.Fprintf(&b, "%s = %s\n", name, tomlValue(f, false))
		}
	})
	return b.String()
}

// eachLeaf calls fn for every key of the schema in file order, writing a
// [section] header to b before a section's first key, and sections after
// the keys of their parent, as TOML requires.
func (sch *schema) eachLeaf(b *strings.Builder, fn func(name, key string, l leaf)) {
	var walk func(section string)
	walk = func(section string) {
		var subs []string
		header := false
		for _, name := range sch.sections[section] {
			key := name
			if section != "" {
				key = section + "." + name
			}
			l, ok := sch.leaves[key]
			if !ok {
				subs = append(subs, key)
				continue
			}
			if !header && section != "" {
				fmt.Fprintf(b, "\n[%s]\n", section)
				header = true
			}
			fn(name, key, l)
		}
		for _, s := range subs {
			walk(s)
		}
	}
	walk("")
}
