package keptkeys

import (
	"fmt"
	"testing"

	"github.com/hearth-rpg/hearth/auth"
)

func TestGetAnswersOnlyAtTheGenerationKept(t *testing.T) {
	var k Keys
	key := auth.StoredKey{ID: "k1", Hash: "h"}
	usr := auth.User{ID: "u7", Name: "ada"}
	k.Put("k1", 42, key, usr)
	tests := []struct {
		name string
		id   string
		gen  int64
		ok   bool
	}{
		{"same id and generation", "k1", 42, true},
		{"generation moved", "k1", 43, false},
		{"other key", "k2", 42, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotKey, gotUsr, ok := k.Get(tt.id, tt.gen)
			if ok != tt.ok {
				t.Fatalf("Get(%q, %d) ok = %v, want %v", tt.id, tt.gen, ok, tt.ok)
			}
			if ok && (gotKey != key || gotUsr != usr) {
				t.Fatalf("Get = %+v, %+v; want %+v, %+v", gotKey, gotUsr, key, usr)
			}
		})
	}
}

func TestPutDropsAllPastMax(t *testing.T) {
	var k Keys
	for i := range Max {
		k.Put(fmt.Sprint(i), 1, auth.StoredKey{ID: fmt.Sprint(i)}, auth.User{})
	}
	if _, _, ok := k.Get("0", 1); !ok {
		t.Fatal("a lookup was dropped before the bound was reached")
	}
	k.Put("one more", 1, auth.StoredKey{ID: "one more"}, auth.User{})
	if _, _, ok := k.Get("0", 1); ok {
		t.Fatal("past the bound, the old lookups were kept")
	}
	if _, _, ok := k.Get("one more", 1); !ok {
		t.Fatal("the lookup put past the bound was not kept")
	}
}
