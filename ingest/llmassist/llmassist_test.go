package llmassist

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/HugoSmits86/nativewebp"
	_ "golang.org/x/image/webp"

	"github.com/hearth-rpg/hearth/ingest/pipeline"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/ollama"
	"github.com/hearth-rpg/hearth/llm/openai"
	"github.com/hearth-rpg/hearth/llm/structured"
)

// fakeOllama answers /api/chat in Ollama's NDJSON wire format with the
// next of its answers, recording each request body.
type fakeOllama struct {
	mu      sync.Mutex
	answers []string
	bodies  []map[string]any
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		return
	}
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	answer := ""
	if len(f.answers) > 0 {
		answer, f.answers = f.answers[0], f.answers[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-ndjson")
	for _, m := range []map[string]any{
		{"model": body["model"], "message": map[string]any{"role": "assistant", "content": answer}, "done": false},
		{"model": body["model"], "message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"},
	} {
		b, _ := json.Marshal(m)
		w.Write(append(b, '\n'))
	}
}

func ollamaWith(t *testing.T, answers ...string) (*fakeOllama, llm.Provider) {
	t.Helper()
	f := &fakeOllama{answers: answers}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	p, err := ollama.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return f, p
}

func TestCaptionOverOllama(t *testing.T) {
	f, p := ollamaWith(t, "  A hand-drawn map of a river valley,\n with a ruined tower.  ")
	c := &Captioner{Provider: p, Model: "llava:7b"}
	webp := []byte("RIFF\x10\x00\x00\x00WEBPVP8L-pixels")
	got, err := c.Caption(context.Background(), webp, "image/webp", "  The vale of\nOst.  ")
	if err != nil {
		t.Fatal(err)
	}
	if got != "A hand-drawn map of a river valley, with a ruined tower." {
		t.Errorf("caption = %q", got)
	}
	if len(f.bodies) != 1 {
		t.Fatalf("%d requests", len(f.bodies))
	}
	b := f.bodies[0]
	msgs, _ := b["messages"].([]any)
	if b["model"] != "llava:7b" || len(msgs) != 1 {
		t.Fatalf("request: %v", b)
	}
	m := msgs[0].(map[string]any)
	content, _ := m["content"].(string)
	if m["role"] != "user" || !strings.HasPrefix(content, CaptionPrompt) || !strings.HasSuffix(content, "(it may be its caption): The vale of Ost.") {
		t.Errorf("message: %v", m)
	}
	images, _ := m["images"].([]any)
	if len(images) != 1 || images[0] != base64.StdEncoding.EncodeToString(webp) {
		t.Errorf("images = %v", m["images"])
	}
	if k := c.Key(); k != "caption@1:ollama/llava:7b" {
		t.Errorf("key = %q", k)
	}
}

func TestCaptionFailures(t *testing.T) {
	_, p := ollamaWith(t, "   ")
	c := &Captioner{Provider: p, Model: "llava", MaxBytes: 100}
	if _, err := c.Caption(context.Background(), []byte("RIFF small"), "image/webp", ""); err == nil || !strings.Contains(err.Error(), "empty description") {
		t.Errorf("empty answer: %v", err)
	}
	if _, err := c.Caption(context.Background(), make([]byte, 101), "image/webp", ""); err == nil || !strings.Contains(err.Error(), "more than the 100") {
		t.Errorf("large image: %v", err)
	}
}

// The same captioner speaks OpenAI's format through its provider.
func TestCaptionOverOpenAI(t *testing.T) {
	var got []any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Content []any `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		if len(body.Messages) == 1 {
			got = body.Messages[0].Content
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"A red dragon."},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	p, err := openai.New(srv.URL+"/v1", "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&Captioner{Provider: p, Model: "gpt-4o-mini"}).Caption(context.Background(), []byte("RIFFxxxxWEBP"), "image/webp", "")
	if err != nil || d != "A red dragon." {
		t.Fatalf("caption %q, %v", d, err)
	}
	want := `[{"type":"text","text":"` + CaptionPrompt + `"},{"type":"image_url","image_url":{"url":"data:image/webp;base64,UklGRnh4eHhXRUJQ"}}]`
	var w []any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		b, _ := json.Marshal(got)
		t.Errorf("content parts:\n%s\nwant\n%s", b, want)
	}
}

func TestChecker(t *testing.T) {
	tests := []struct {
		name    string
		answers []string
		want    string
		err     error
		calls   int
	}{
		{"answer", []string{`{"label":"systems"}`}, pipeline.Systems, nil, 1},
		{"repaired", []string{`It is lore, I think.`, "```json\n{\"label\": \"both\"}\n```"}, pipeline.Both, nil, 2},
		{"not a label", []string{`{"label":"fluff"}`, `{"label":"fluff"}`}, "", structured.ErrInvalid, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, p := ollamaWith(t, tt.answers...)
			c, err := NewChecker(p, "qwen3:8b")
			if err != nil {
				t.Fatal(err)
			}
			rule := pipeline.Class{Label: pipeline.Lore, Systems: 1.5, Lore: 3}
			got, err := c.Classify(context.Background(), "Crocodiles", "Crocodiles ambush travellers. "+strings.Repeat("word ", 3000), rule)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
			if len(f.bodies) != tt.calls {
				t.Fatalf("%d calls, want %d", len(f.bodies), tt.calls)
			}
			b := f.bodies[0]
			format, _ := json.Marshal(b["format"])
			if !strings.Contains(string(format), `"label"`) || b["model"] != "qwen3:8b" {
				t.Errorf("no schema sent as format: %s", format)
			}
			msgs := b["messages"].([]any)
			user := msgs[1].(map[string]any)["content"].(string)
			if !strings.Contains(user, "Section: Crocodiles") || !strings.Contains(user, `says "lore"`) || len(user) > defaultSectionChars+400 {
				t.Errorf("user message (%d bytes): %.300s", len(user), user)
			}
		})
	}
	_, p := ollamaWith(t)
	c, _ := NewChecker(p, "qwen3:8b")
	if k := c.Key(); k != "classify@1:ollama/qwen3:8b" {
		t.Errorf("key = %q", k)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one two three four", 12, "one two…"},
		{"ääää", 3, "ä…"},
		{"abcdefghij", 4, "abcd…"},
	}
	for _, tt := range tests {
		if got := cut(tt.s, tt.n); got != tt.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// A large image reaches the vision model scaled down to MaxSide on its
// long side, as a JPEG that still shows what the original did; with
// scaling off it goes as it was.
func TestCaptionScalesLargeImages(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 3000, 1200))
	for y := range 1200 {
		for x := range 3000 {
			c := color.NRGBA{R: 200, A: 255} // red left half
			if x >= 1500 {
				c = color.NRGBA{B: 200, A: 0} // transparent right half: white
			}
			src.SetNRGBA(x, y, c)
		}
	}
	var webp bytes.Buffer
	if err := nativewebp.Encode(&webp, src, nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		maxSide      int
		mime         string
		wantW, wantH int
	}{
		{0, "image/jpeg", DefaultMaxSide, 1200 * DefaultMaxSide / 3000},
		{600, "image/jpeg", 600, 240},
		{-1, "image/webp", 3000, 1200},
	} {
		f, p := ollamaWith(t, "A banner, red and white.")
		c := &Captioner{Provider: p, Model: "llava", MaxSide: tt.maxSide}
		if _, err := c.Caption(context.Background(), webp.Bytes(), "image/webp", ""); err != nil {
			t.Fatal(err)
		}
		msgs := f.bodies[0]["messages"].([]any)
		images := msgs[0].(map[string]any)["images"].([]any)
		data, err := base64.StdEncoding.DecodeString(images[0].(string))
		if err != nil {
			t.Fatal(err)
		}
		got, format, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("max side %d: the image sent does not decode: %v", tt.maxSide, err)
		}
		if "image/"+format != tt.mime || got.Bounds().Dx() != tt.wantW || got.Bounds().Dy() != tt.wantH {
			t.Errorf("max side %d: sent a %s of %v, want %s %d×%d", tt.maxSide, format, got.Bounds().Size(), tt.mime, tt.wantW, tt.wantH)
			continue
		}
		r, g, b, _ := got.At(tt.wantW/4, tt.wantH/2).RGBA()
		if r>>8 < 150 || g>>8 > 60 || b>>8 > 60 {
			t.Errorf("max side %d: left half is %d,%d,%d, want red", tt.maxSide, r>>8, g>>8, b>>8)
		}
		if r, g, b, _ := got.At(3*tt.wantW/4, tt.wantH/2).RGBA(); tt.mime == "image/jpeg" && (r>>8 < 240 || g>>8 < 240 || b>>8 < 240) {
			t.Errorf("max side %d: transparent half is %d,%d,%d, want white", tt.maxSide, r>>8, g>>8, b>>8)
		}
	}
}

// TestCaptionJPEG: a picture kept as a JPEG (from a PDF) is scaled the
// same way when too large, and sent as it is, as image/jpeg, when not.
func TestCaptionJPEG(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 3000, 1200))
	draw.Draw(src, src.Bounds(), &image.Uniform{color.RGBA{R: 200, A: 255}}, image.Point{}, draw.Src)
	var big, small bytes.Buffer
	if err := jpeg.Encode(&big, src, nil); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&small, src.SubImage(image.Rect(0, 0, 300, 120)), nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name         string
		data         []byte
		wantW, wantH int
		same         bool
	}{
		{"large", big.Bytes(), DefaultMaxSide, 1200 * DefaultMaxSide / 3000, false},
		{"small", small.Bytes(), 300, 120, true},
	} {
		f, p := ollamaWith(t, "A red banner.")
		c := &Captioner{Provider: p, Model: "llava"}
		if _, err := c.Caption(context.Background(), tt.data, "image/jpeg", ""); err != nil {
			t.Fatal(err)
		}
		msgs := f.bodies[0]["messages"].([]any)
		images := msgs[0].(map[string]any)["images"].([]any)
		data, err := base64.StdEncoding.DecodeString(images[0].(string))
		if err != nil {
			t.Fatal(err)
		}
		got, format, err := image.Decode(bytes.NewReader(data))
		if err != nil || format != "jpeg" || got.Bounds().Dx() != tt.wantW || got.Bounds().Dy() != tt.wantH {
			t.Errorf("%s: sent %s %v (%v), want a %d×%d JPEG", tt.name, format, got, err, tt.wantW, tt.wantH)
			continue
		}
		if tt.same != bytes.Equal(data, tt.data) {
			t.Errorf("%s: sent unchanged = %v, want %v", tt.name, !tt.same, tt.same)
		}
	}
}
