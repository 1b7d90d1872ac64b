package lorebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// object reads fields of one JSON object the way real exports write them:
// a field may be missing or null (the default applies), a number may arrive
// as a string, a boolean as 0/1 or "true"/"false". Anything else of the
// wrong type is an error naming the field's path.
//
// SillyTavern keeps its own settings for card entries in an "extensions"
// object with snake_case names; an object may therefore look in two
// places, extensions first for cards (as SillyTavern's convertCharacterBook
// does) and the entry itself first for World Info files.
type object struct {
	path     string
	fields   map[string]json.RawMessage
	ext      map[string]json.RawMessage
	extFirst bool
}

func decodeObject(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s: want an object, got %s", path, describe(raw))
	}
	return m, nil
}

// find returns the first present, non-null field among names and its path.
func (o *object) find(names ...string) (json.RawMessage, string) {
	look := func(m map[string]json.RawMessage, prefix string) (json.RawMessage, string) {
		for _, n := range names {
			if v, ok := m[n]; ok && !isNull(v) {
				return v, prefix + "." + n
			}
		}
		return nil, ""
	}
	first, second := o.fields, o.ext
	p1, p2 := o.path, o.path+".extensions"
	if o.extFirst {
		first, second, p1, p2 = second, first, p2, p1
	}
	if v, p := look(first, p1); v != nil {
		return v, p
	}
	return look(second, p2)
}

func (o *object) has(names ...string) bool {
	v, _ := o.find(names...)
	return v != nil
}

func (o *object) str(def string, names ...string) (string, error) {
	raw, path := o.find(names...)
	if raw == nil {
		return def, nil
	}
	s, err := scalarString(raw)
	if err != nil {
		return "", fmt.Errorf("%s: want a string, got %s", path, describe(raw))
	}
	return s, nil
}

func (o *object) boolean(def bool, names ...string) (bool, error) {
	b, ok, err := o.optBool(names...)
	if err != nil || !ok {
		return def, err
	}
	return b, nil
}

func (o *object) optBool(names ...string) (bool, bool, error) {
	raw, path := o.find(names...)
	if raw == nil {
		return false, false, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, true, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && (f == 0 || f == 1) {
		return f == 1, true, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1", "yes", "on":
			return true, true, nil
		case "false", "0", "no", "off":
			return false, true, nil
		case "":
			return false, false, nil
		}
	}
	return false, false, fmt.Errorf("%s: want true or false, got %s", path, describe(raw))
}

func (o *object) number(def float64, names ...string) (float64, error) {
	f, ok, err := o.optNumber(names...)
	if err != nil || !ok {
		return def, err
	}
	return f, nil
}

func (o *object) optNumber(names ...string) (float64, bool, error) {
	raw, path := o.find(names...)
	if raw == nil {
		return 0, false, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, true, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		s = strings.TrimSpace(s)
		if s == "" {
			return 0, false, nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true, nil
		}
	}
	return 0, false, fmt.Errorf("%s: want a number, got %s", path, describe(raw))
}

func (o *object) integer(def int, names ...string) (int, error) {
	n, ok, err := o.optInt(names...)
	if err != nil || !ok {
		return def, err
	}
	return n, nil
}

func (o *object) optInt(names ...string) (int, bool, error) {
	f, ok, err := o.optNumber(names...)
	if err != nil || !ok {
		return 0, ok, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		_, path := o.find(names...)
		return 0, false, fmt.Errorf("%s: want a whole number within ±2147483648, got %v", path, f)
	}
	return int(f), true, nil
}

// keys reads a key list: an array of strings (numbers are taken as their
// text) or, as some older exports have it, one comma-separated string.
// Blank keys are dropped.
func (o *object) keys(names ...string) ([]string, error) {
	raw, path := o.find(names...)
	if raw == nil {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, fmt.Errorf("%s: want a list of strings, got %s", path, describe(raw))
		}
		var out []string
		for _, k := range strings.Split(s, ",") {
			if k = strings.TrimSpace(k); k != "" {
				out = append(out, k)
			}
		}
		return out, nil
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		if isNull(item) {
			continue
		}
		s, err := scalarString(item)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: want a string, got %s", path, i, describe(item))
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// scalarString accepts a JSON string, or a number written as its text.
func scalarString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("not a string")
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// describe names a JSON value's type and a short excerpt for error messages.
func describe(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	kind := "a value"
	if len(raw) > 0 {
		switch raw[0] {
		case '{':
			kind = "an object"
		case '[':
			kind = "a list"
		case '"':
			kind = "a string"
		case 't', 'f':
			kind = "a boolean"
		case 'n':
			kind = "null"
		default:
			kind = "a number"
		}
	}
	if kind == "null" {
		return kind
	}
	s := strings.ToValidUTF8(string(raw), "\uFFFD")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:37]) + "…"
	}
	return kind + " " + s
}
