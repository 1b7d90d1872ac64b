package rules

import (
	"bytes"
	"os"
	"testing"

	"github.com/hearth-rpg/hearth/rules/internal/describe"
)

// The descriptions must match the doc comments they are generated from.
func TestDescriptionsUpToDate(t *testing.T) {
	want, err := describe.Generate("intents.go")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("descriptions.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("descriptions.go is stale: run go generate ./rules")
	}
	for _, s := range Specs() {
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
	}
}
