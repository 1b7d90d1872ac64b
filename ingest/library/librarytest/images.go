package librarytest

import (
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/retrieve"
)

// Illustrated stores a document whose images have the given descriptions
// and contexts ([2]string{description, context}), one image per page.
func Illustrated(t testing.TB, l *library.Library, id string, lv access.Level, ims ...[2]string) {
	t.Helper()
	var pages []library.Page
	var images []library.Image
	for i, im := range ims {
		pages = append(pages, library.Page{Number: i + 1, Text: "page text " + im[1]})
		images = append(images, library.Image{Page: i + 1, Width: 20, Height: 10, Data: []byte("RIFF" + id), Description: im[0], Context: im[1]})
	}
	chunks := []chunk.Chunk{{Page: 1, Text: "page one of " + id, SourceType: chunk.Prose}}
	d := library.Document{ID: id, Title: id, Format: "pdf", Source: id + ".pdf", Hash: id, Access: lv}
	if err := l.Put(ctx, d, pages, images, chunks); err != nil {
		t.Fatal(err)
	}
}

// names lists images as "document/page".
func names(ims []library.Image) []string {
	var out []string
	for _, im := range ims {
		out = append(out, im.Document+"/"+strconv.Itoa(im.Page))
	}
	return out
}

func testSearchImages(t *testing.T, st library.Store, ix retrieve.Index) {
	l := library.New(st, ix)
	Illustrated(t, l, "bestiary", access.Player,
		[2]string{"A green dragon coiled on a hoard of coins.", "Dragons hoard treasure."},
		[2]string{"A hand-drawn map of a river valley with a ruined tower.", "The valley of Ost."},
		[2]string{"", "A dragon's lair, as the map shows."}, // no caption: context alone
	)
	Illustrated(t, l, "secrets", access.GM,
		[2]string{"A dragon cult's hidden temple, cut away.", "Only the GM knows."},
	)
	tests := []struct {
		name string
		q    library.ImageQuery
		want []string
	}{
		{"description first, then context", library.ImageQuery{Text: "dragon", Role: access.Player}, []string{"bestiary/1", "bestiary/3"}},
		{"the GM sees the GM's book too", library.ImageQuery{Text: "dragon", Role: access.GM}, []string{"bestiary/1", "secrets/1", "bestiary/3"}},
		{"stemmed, any word", library.ImageQuery{Text: "maps of towers", Role: access.Player}, []string{"bestiary/2", "bestiary/3"}},
		{"one document", library.ImageQuery{Text: "dragon", Document: "secrets", Role: access.Player}, nil},
		{"one page", library.ImageQuery{Text: "dragon", Document: "bestiary", Page: 3, Role: access.Player}, []string{"bestiary/3"}},
		{"no words, no search", library.ImageQuery{Text: `"*" OR -`, Role: access.GM}, nil},
		{"query syntax is text", library.ImageQuery{Text: `dragon" OR "temple`, Role: access.Player}, []string{"bestiary/1", "bestiary/3"}},
		{"list without text", library.ImageQuery{Role: access.Player}, []string{"bestiary/1", "bestiary/2", "bestiary/3"}},
		{"limit", library.ImageQuery{Role: access.GM, Limit: 2}, []string{"bestiary/1", "bestiary/2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.SearchImages(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(got), tt.want) {
				t.Errorf("got %v, want %v", names(got), tt.want)
			}
			for _, im := range got {
				if im.ID == 0 || im.Data != nil || im.MediaType != "image/webp" {
					t.Errorf("image %+v: no id, bytes not asked for, or not WebP (a picture stored without a media type)", im)
				}
			}
		})
	}
	// By id, through the same join.
	got, _ := l.SearchImages(ctx, library.ImageQuery{Text: "temple", Role: access.GM, WithData: true})
	if len(got) != 1 || string(got[0].Data) != "RIFFsecrets" || got[0].Description == "" {
		t.Fatalf("temple: %+v", got)
	}
	if _, err := l.Image(ctx, got[0].ID, access.Player, false); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("a player read a GM image by id: %v", err)
	}
	if im, err := l.Image(ctx, got[0].ID, access.GM, true); err != nil || string(im.Data) != "RIFFsecrets" || im.Page != 1 {
		t.Errorf("image by id: %+v %v", im, err)
	}
	// Replacing and deleting documents keeps the image search in step.
	Illustrated(t, l, "secrets", access.GM, [2]string{"A plain wall.", ""})
	if got, _ := l.SearchImages(ctx, library.ImageQuery{Text: "temple", Role: access.GM}); len(got) != 0 {
		t.Errorf("a replaced image is still found: %v", names(got))
	}
	if err := l.Delete(ctx, "bestiary"); err != nil {
		t.Fatal(err)
	}
	if got, _ := l.SearchImages(ctx, library.ImageQuery{Text: "dragon map wall", Role: access.GM}); !slices.Equal(names(got), []string{"secrets/1"}) {
		t.Errorf("after delete: %v", names(got))
	}
}
