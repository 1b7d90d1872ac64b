package config

import (
	"fmt"
	"io"
	"reflect"

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
