package plan

import (
	"encoding/json"
	"reflect"
	"testing"
)

func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDeepMerge(t *testing.T) {
	tests := []struct{ name, target, patch, want string }{
		{"nested object merge (seed)", `{"a":{"b":1,"c":2}}`, `{"a":{"c":3,"d":4}}`, `{"a":{"b":1,"c":3,"d":4}}`},
		{"array replacement (seed)", `{"items":[1,2,3]}`, `{"items":[4,5]}`, `{"items":[4,5]}`},
		{"key deletion (seed)", `{"a":1,"b":2}`, `{"b":null}`, `{"a":1}`},
		{"deleting a missing key", `{"a":1}`, `{"z":null}`, `{"a":1}`},
		{"object replaces primitive, nulls dropped", `{"a":1}`, `{"a":{"b":null,"c":2}}`, `{"a":{"c":2}}`},
		{"primitive replaces object", `{"a":{"b":1}}`, `{"a":true}`, `{"a":true}`},
		{"deep", `{"player":{"stats":{"health":100,"mana":50}}}`, `{"player":{"stats":{"health":72},"inventory":{"dagger":{"equipped":true}}}}`,
			`{"player":{"stats":{"health":72,"mana":50},"inventory":{"dagger":{"equipped":true}}}}`},
		{"empty patch", `{"a":1}`, `{}`, `{"a":1}`},
		{"nil target", `null`, `{"a":{"b":null}}`, `{"a":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, patch := obj(t, tt.target), obj(t, tt.patch)
			before, _ := json.Marshal(target)
			patchBefore, _ := json.Marshal(patch)
			got := DeepMerge(target, patch)
			if want := obj(t, tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("DeepMerge = %v, want %v", got, want)
			}
			after, _ := json.Marshal(target)
			patchAfter, _ := json.Marshal(patch)
			if string(before) != string(after) || string(patchBefore) != string(patchAfter) {
				t.Error("DeepMerge modified its arguments")
			}
		})
	}
}

func TestDeepMergeSharesNothing(t *testing.T) {
	target := map[string]any{"keep": map[string]any{"x": 1.0}}
	patch := map[string]any{"list": []any{map[string]any{"y": 2.0}}, "new": map[string]any{"z": 3.0}}
	got := DeepMerge(target, patch)
	got["keep"].(map[string]any)["x"] = 9.0
	got["list"].([]any)[0].(map[string]any)["y"] = 9.0
	got["new"].(map[string]any)["z"] = 9.0
	if target["keep"].(map[string]any)["x"] != 1.0 || patch["list"].([]any)[0].(map[string]any)["y"] != 2.0 || patch["new"].(map[string]any)["z"] != 3.0 {
		t.Error("the result aliases an argument")
	}
}

// TestComposePatch checks that applying the composition equals applying
// the patches one after the other.
func TestComposePatch(t *testing.T) {
	states := []string{`{}`, `{"a":{"b":1,"c":{"d":2}},"e":[1],"f":"x"}`, `{"a":5}`}
	patches := [][2]string{
		{`{"a":{"b":2}}`, `{"a":{"c":{"d":null}}}`},
		{`{"a":{"b":null}}`, `{"a":{"b":3}}`},
		{`{"e":[2]}`, `{"e":null}`},
		{`{"a":null}`, `{"f":"y"}`},
		{`{"g":{"h":1}}`, `{"g":{"i":null,"j":2}}`},
		{`{"a":{"x":1}}`, `{"a":{"x":{"deep":true}}}`},
	}
	for _, s := range states {
		for _, ab := range patches {
			state, a, b := obj(t, s), obj(t, ab[0]), obj(t, ab[1])
			seq := DeepMerge(DeepMerge(state, a), b)
			once := DeepMerge(state, ComposePatch(a, b))
			if !reflect.DeepEqual(seq, once) {
				t.Errorf("state %s, patches %s then %s: sequential %v, composed %v", s, ab[0], ab[1], seq, once)
			}
		}
	}
}
