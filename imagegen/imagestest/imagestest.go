// Package imagestest is the conformance suite every imagegen.Store must
// pass: an image reads back whole, belongs to its game only, is counted
// per game, survives nothing of a deleted game, and is refused for a game
// that does not exist or when it is not a PNG. A backend's tests call Run
// with a function that opens a fresh, empty image store and the game
// store it lives beside.
package imagestest

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"testing"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/imagegen"
	"github.com/hearth-rpg/hearth/store"
)

// PNG returns a small valid PNG whose pixels spell tag, so that two
// images with different tags differ.
func PNG(tag string) []byte {
	img := image.NewGray(image.Rect(0, 0, len(tag)+1, 1))
	for i := range len(tag) {
		img.Pix[i+1] = tag[i]
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // an in-memory encode of a valid image does not fail
	}
	return b.Bytes()
}

// Run runs the suite; open returns new, empty stores on one database.
func Run(t *testing.T, open func(t *testing.T) (imagegen.Store, store.Store)) {
	tests := []struct {
		name string
		fn   func(*testing.T, imagegen.Store, store.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"OtherGamesAreNotFound", testOtherGames},
		{"Counts", testCounts},
		{"DeletedWithTheGame", testDeleted},
		{"Refuses", testRefuses},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imgs, games := open(t)
			t.Cleanup(func() { imgs.Close() })
			tt.fn(t, imgs, games)
		})
	}
}

func newGame(t *testing.T, s store.Store, id string) {
	t.Helper()
	sess := &store.Session{ID: id, Name: "Game " + id, Campaign: "test", Seed: 7}
	if err := s.CreateSession(context.Background(), sess, store.Snapshot{State: json.RawMessage(`{"turn":0}`)}); err != nil {
		t.Fatal(err)
	}
}

func add(t *testing.T, s imagegen.Store, game string, turn int, tag string) imagegen.Record {
	t.Helper()
	r, err := s.Add(context.Background(), imagegen.Record{Session: game, Branch: "main", Turn: turn, Prompt: "prompt " + tag,
		Provider: "openai", Model: "m", Mode: imagegen.ModeCurrent, By: "gail"}, PNG(tag))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func testRoundTrip(t *testing.T, s imagegen.Store, g store.Store) {
	ctx := context.Background()
	newGame(t, g, "g1")
	a := add(t, s, "g1", 3, "first")
	b := add(t, s, "g1", 5, "second")
	if a.ID == "" || a.ID == b.ID || a.Created.IsZero() || a.Bytes != len(PNG("first")) {
		t.Fatalf("added: %+v, %+v", a, b)
	}
	got, data, err := s.Get(ctx, "g1", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, PNG("first")) {
		t.Errorf("PNG read back differs: %q", data)
	}
	if got != a {
		t.Errorf("record read back:\n got %+v\nwant %+v", got, a)
	}
	list, err := s.List(ctx, "g1")
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID || list[1].Turn != 5 {
		t.Errorf("list: %+v %v", list, err)
	}
}

func testOtherGames(t *testing.T, s imagegen.Store, g store.Store) {
	ctx := context.Background()
	newGame(t, g, "g1")
	newGame(t, g, "g2")
	a := add(t, s, "g1", 1, "one")
	if _, _, err := s.Get(ctx, "g2", a.ID); hearth.ErrorCode(err) != hearth.NotFound {
		t.Errorf("another game's image: %v, want not found", err)
	}
	if _, _, err := s.Get(ctx, "g1", "img_missing"); hearth.ErrorCode(err) != hearth.NotFound {
		t.Errorf("a missing image: %v, want not found", err)
	}
	list, err := s.List(ctx, "g2")
	if err != nil || len(list) != 0 || list == nil {
		t.Errorf("the other game's list: %#v %v, want empty and not nil", list, err)
	}
}

func testCounts(t *testing.T, s imagegen.Store, g store.Store) {
	ctx := context.Background()
	newGame(t, g, "g1")
	newGame(t, g, "g2")
	newGame(t, g, "g3")
	add(t, s, "g1", 1, "a")
	add(t, s, "g1", 2, "b")
	add(t, s, "g2", 1, "c")
	cs, err := s.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []imagegen.Count{{Session: "g1", Images: 2}, {Session: "g2", Images: 1}}
	if len(cs) != len(want) || cs[0] != want[0] || cs[1] != want[1] {
		t.Errorf("counts: %+v, want %+v", cs, want)
	}
}

func testDeleted(t *testing.T, s imagegen.Store, g store.Store) {
	ctx := context.Background()
	newGame(t, g, "g1")
	newGame(t, g, "g2")
	a := add(t, s, "g1", 1, "gone")
	b := add(t, s, "g2", 1, "kept")
	if err := g.DeleteSession(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(ctx, "g1", a.ID); hearth.ErrorCode(err) != hearth.NotFound {
		t.Errorf("a deleted game's image: %v, want not found", err)
	}
	if list, err := s.List(ctx, "g1"); err != nil || len(list) != 0 {
		t.Errorf("a deleted game's list: %+v %v", list, err)
	}
	if _, _, err := s.Get(ctx, "g2", b.ID); err != nil {
		t.Errorf("another game's image went too: %v", err)
	}
}

func testRefuses(t *testing.T, s imagegen.Store, g store.Store) {
	ctx := context.Background()
	newGame(t, g, "g1")
	r := imagegen.Record{Session: "nope", Branch: "main", Turn: 1, Prompt: "p", Provider: "openai", Model: "m", Mode: imagegen.ModeCurrent}
	if _, err := s.Add(ctx, r, PNG("x")); hearth.ErrorCode(err) != hearth.NotFound {
		t.Errorf("an image of no game: %v, want not found", err)
	}
	r.Session = "g1"
	if _, err := s.Add(ctx, r, []byte("GIF89a not a png")); hearth.ErrorCode(err) != hearth.Invalid {
		t.Errorf("a GIF: %v, want invalid", err)
	}
	if list, _ := s.List(ctx, "g1"); len(list) != 0 {
		t.Errorf("refused images were stored: %+v", list)
	}
}
