package i18n

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"
)

// testCatalog has a message in both languages, one only in English, and a
// plural message.
func testCatalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := load(fstest.MapFS{
		"locales/t.en.toml": {Data: []byte(`
both = "Hello, {{.Name}}."
"only.en" = "Only in English."
[files]
one = "{{.Count}} file"
other = "{{.Count}} files"
`)},
		"locales/t.de.toml": {Data: []byte(`
both = "Guten Tag, {{.Name}}."
[files]
one = "{{.Count}} Datei"
other = "{{.Count}} Dateien"
`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFallback(t *testing.T) {
	c := testCatalog(t)
	data := map[string]any{"Name": "Ada"}
	tests := []struct {
		accept, id, want, lang string
	}{
		{"de", "both", "Guten Tag, Ada.", "de"},
		{"de-CH", "both", "Guten Tag, Ada.", "de"},
		{"de-AT,en;q=0.5", "both", "Guten Tag, Ada.", "de"},
		{"fr-FR, de;q=0.8", "both", "Guten Tag, Ada.", "de"},
		{"de", "only.en", "Only in English.", "de"},        // requested → English
		{"de", "no.such.message", "no.such.message", "de"}, // → the id
		{"en-GB", "both", "Hello, Ada.", "en"},
		{"fr", "both", "Hello, Ada.", "en"},
		{"", "both", "Hello, Ada.", "en"},
		{"not a language tag;;;", "both", "Hello, Ada.", "en"},
	}
	for _, tt := range tests {
		l := c.For(tt.accept)
		if got := l.T(tt.id, data); got != tt.want {
			t.Errorf("For(%q).T(%q) = %q, want %q", tt.accept, tt.id, got, tt.want)
		}
		if got := l.Language(); got != tt.lang {
			t.Errorf("For(%q).Language() = %q, want %q", tt.accept, got, tt.lang)
		}
	}

	var zero Localizer
	if got := zero.T("both", data); got != "both" || zero.Language() != "" {
		t.Errorf("zero Localizer: T = %q, Language = %q", got, zero.Language())
	}
	if got := From(context.Background()).T("both", nil); got != "both" {
		t.Errorf("From without a localizer: %q", got)
	}
	if got := From(With(context.Background(), c.For("de"))).T("both", data); got != "Guten Tag, Ada." {
		t.Errorf("From(With(de)): %q", got)
	}
}

func TestEmbeddedFallback(t *testing.T) {
	c := MustLoad()
	tests := []struct {
		accept, id, want string
	}{
		{"de-CH,de;q=0.9", "error.internal", "Interner Fehler (Anfrage r1). Die Einzelheiten stehen im Protokoll des Servers."},
		{"fr", "error.internal", "Internal error (request r1). The details are in the server's log."},
		{"", "error.internal", "Internal error (request r1). The details are in the server's log."},
		{"de", "no.such.message", "no.such.message"},
		{"de", "error.body_too_large", "Der Anfragetext ist größer als 1024 Bytes."},
	}
	for _, tt := range tests {
		if got := c.For(tt.accept).T(tt.id, map[string]any{"Limit": 1024, "RequestID": "r1"}); got != tt.want {
			t.Errorf("For(%q).T(%q) = %q, want %q", tt.accept, tt.id, got, tt.want)
		}
	}
}

func TestPlural(t *testing.T) {
	c := testCatalog(t)
	tests := []struct {
		lang  string
		count int
		want  string
	}{
		{"en", 1, "1 file"}, {"en", 0, "0 files"}, {"en", 2, "2 files"},
		{"de", 1, "1 Datei"}, {"de", 3, "3 Dateien"},
	}
	for _, tt := range tests {
		if got := c.For(tt.lang).Plural("files", tt.count, nil); got != tt.want {
			t.Errorf("%s Plural(files, %d) = %q, want %q", tt.lang, tt.count, got, tt.want)
		}
	}
	if got := c.For("de").Plural("missing", 2, nil); got != "missing" {
		t.Errorf("missing plural message: %q", got)
	}
}

func TestForEnv(t *testing.T) {
	c := testCatalog(t)
	tests := []struct {
		env  []string
		want string
	}{
		{nil, "en"},
		{[]string{"LANG=de_DE.UTF-8"}, "de"},
		{[]string{"LANG=de_CH.utf8@euro"}, "de"},
		{[]string{"LANG=de"}, "de"},
		{[]string{"LANG=en_US.UTF-8", "LC_MESSAGES=de_AT.UTF-8"}, "de"},
		{[]string{"LC_MESSAGES=de_DE.UTF-8", "LC_ALL=en_GB.UTF-8"}, "en"},
		{[]string{"LC_ALL=", "LANG=de_DE.UTF-8"}, "de"}, // empty means unset
		{[]string{"LANG=C.UTF-8"}, "en"},
		{[]string{"LANG=POSIX", "LANGUAGE=de"}, "en"}, // C and POSIX ignore LANGUAGE
		{[]string{"LANG=fr_FR.UTF-8", "LANGUAGE=de:fr"}, "de"},
		{[]string{"LANG=de_DE.UTF-8", "LANGUAGE=:"}, "de"},
		{[]string{"LANGUAGE=de"}, "en"}, // no locale is the C locale
		{[]string{"LANG=de_DE.UTF-8", "LANG=en_US.UTF-8"}, "de"},
		{[]string{"LANG=fr_FR.UTF-8"}, "en"},
		{[]string{"LANG=en,de;q=0.9"}, "en"}, // not a locale
		{[]string{"LANG=???"}, "en"},
	}
	for _, tt := range tests {
		if got := c.ForEnv(tt.env).Language(); got != tt.want {
			t.Errorf("ForEnv(%q) language %q, want %q", tt.env, got, tt.want)
		}
	}
	if got := c.ForEnv([]string{"LANG=de_DE.UTF-8"}).T("both", map[string]any{"Name": "Ada"}); got != "Guten Tag, Ada." {
		t.Errorf("ForEnv(de).T = %q", got)
	}
}

func TestMiddleware(t *testing.T) {
	c := testCatalog(t)
	srv := httptest.NewServer(Middleware(c)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, From(r.Context()).T("both", map[string]any{"Name": "Ada"}))
	})))
	defer srv.Close()
	tests := []struct {
		accept    []string
		body, lng string
	}{
		{nil, "Hello, Ada.", "en"},
		{[]string{"de-CH"}, "Guten Tag, Ada.", "de"},
		{[]string{"de-CH,de;q=0.9,en;q=0.8"}, "Guten Tag, Ada.", "de"},
		{[]string{"en-US,en;q=0.9,de;q=0.8"}, "Hello, Ada.", "en"},
		{[]string{"fr-CA, fr;q=0.9"}, "Hello, Ada.", "en"},
		{[]string{"fr", "de"}, "Guten Tag, Ada.", "de"}, // two header lines are one list
		{[]string{"*"}, "Hello, Ada.", "en"},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range tt.accept {
			req.Header.Add("Accept-Language", a)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != tt.body {
			t.Errorf("Accept-Language %q: body %q, want %q", tt.accept, body, tt.body)
		}
		if got := resp.Header.Get("Content-Language"); got != tt.lng {
			t.Errorf("Accept-Language %q: Content-Language %q, want %q", tt.accept, got, tt.lng)
		}
		if got := resp.Header.Get("Vary"); got != "Accept-Language" {
			t.Errorf("Vary %q", got)
		}
	}
}

func BenchmarkT(b *testing.B) {
	l := MustLoad().For("de-CH,de;q=0.9")
	data := map[string]any{"Limit": 1 << 20}
	for b.Loop() {
		if l.T("error.body_too_large", data) == "error.body_too_large" {
			b.Fatal("message missing")
		}
	}
}

func BenchmarkMiddleware(b *testing.B) {
	h := Middleware(MustLoad())(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Accept-Language", "de-CH,de;q=0.9,en;q=0.8")
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}
