package keptkeys

import (
	"errors"
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

func TestLookupReadsOnlyWhenNotKept(t *testing.T) {
	var k Keys
	reads := 0
	read := func() (auth.StoredKey, auth.User, error) {
		reads++
		return auth.StoredKey{ID: "k1"}, auth.User{ID: "u1"}, nil
	}
	failing := func() (auth.StoredKey, auth.User, error) {
		reads++
		return auth.StoredKey{}, auth.User{}, errors.New("no such key")
	}
	steps := []struct {
		gen       int64
		read      func() (auth.StoredKey, auth.User, error)
		wantReads int
		wantErr   bool
	}{
		{1, read, 1, false},    // first: read
		{1, read, 1, false},    // same generation: kept
		{2, failing, 2, true},  // generation moved: read again, and it failed
		{2, read, 3, false},    // a failure is not kept
		{2, failing, 3, false}, // kept at 2 now
	}
	for i, st := range steps {
		_, _, err := k.Lookup("k1", st.gen, st.read)
		if (err != nil) != st.wantErr || reads != st.wantReads {
			t.Fatalf("step %d: err %v, reads %d; want error %v, reads %d", i, err, reads, st.wantErr, st.wantReads)
		}
	}
}
