package i18n

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

//go:embed locales/*.toml
var locales embed.FS

// Catalog is the set of all messages in all languages.
type Catalog struct {
	bundle *goi18n.Bundle
	// matcher picks the language the way the bundle does (same tags, same
	// order, English first), so Language reports what T uses.
	matcher language.Matcher
	tags    []language.Tag
}

// Load reads the embedded catalogs.
func Load() (*Catalog, error) {
	return load(locales)
}

// load reads every locales/*.toml of fsys; tests give it other files.
func load(fsys fs.FS) (*Catalog, error) {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	files, err := fs.Glob(fsys, "locales/*.toml")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		if _, err := b.ParseMessageFileBytes(data, path.Base(f)); err != nil {
			return nil, fmt.Errorf("message catalog %s: %w", f, err)
		}
	}
	tags := b.LanguageTags()
	return &Catalog{bundle: b, matcher: language.NewMatcher(tags), tags: tags}, nil
}

// MustLoad is Load for the embedded catalogs, which tests keep valid.
func MustLoad() *Catalog {
	c, err := Load()
	if err != nil {
		panic(err)
	}
	return c
}

// Localizer translates messages for one reader's language preferences.
// The zero Localizer returns message ids.
type Localizer struct {
	l    *goi18n.Localizer
	lang string
}

// For returns a localizer for the given preferences, most preferred first:
// language tags or whole Accept-Language header values. Unparsable entries
// are skipped; a region falls back to its language (de-CH → de), and a
// language without a catalog to English.
func (c *Catalog) For(langs ...string) Localizer {
	var tags []language.Tag
	for _, s := range langs {
		// The same parsing go-i18n's NewLocalizer does.
		t, _, err := language.ParseAcceptLanguage(s)
		if err == nil {
			tags = append(tags, t...)
		}
	}
	_, i, _ := c.matcher.Match(tags...)
	return Localizer{l: goi18n.NewLocalizer(c.bundle, langs...), lang: c.tags[i].String()}
}

// ForEnv returns a localizer for a command-line user, from the POSIX
// locale variables in environ (as os.Environ gives it): the first set of
// LC_ALL, LC_MESSAGES and LANG ("de_DE.UTF-8" → de), preceded by GNU's
// LANGUAGE list ("de:en") unless the locale is C or POSIX, which mean
// English, as in gettext.
func (c *Catalog) ForEnv(environ []string) Localizer {
	get := func(name string) string {
		for _, kv := range environ {
			if k, v, ok := strings.Cut(kv, "="); ok && k == name {
				return v // the first, as os.Getenv
			}
		}
		return ""
	}
	locale := ""
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if locale = get(name); locale != "" {
			break
		}
	}
	base, _, _ := strings.Cut(locale, ".")
	if locale == "" || base == "C" || base == "POSIX" {
		return c.For("en")
	}
	var prefs []string
	for _, l := range strings.Split(get("LANGUAGE"), ":") {
		if t := posixTag(l); t != "" {
			prefs = append(prefs, t)
		}
	}
	return c.For(append(prefs, posixTag(locale))...)
}

// posixTag turns a POSIX locale name, language[_territory][.codeset][@modifier],
// into a BCP 47 tag: "de_DE.UTF-8@euro" → "de-DE".
func posixTag(locale string) string {
	locale, _, _ = strings.Cut(locale, "@")
	locale, _, _ = strings.Cut(locale, ".")
	if strings.ContainsAny(locale, ",;") {
		return "" // not a locale; keep it from reading as an Accept-Language list
	}
	return strings.ReplaceAll(strings.TrimSpace(locale), "_", "-")
}

// Language is the catalog language l translates into (e.g. "de"), for a
// Content-Language header; messages missing in it still come in English.
// Empty for the zero Localizer.
func (l Localizer) Language() string {
	return l.lang
}

// T returns message id in the reader's language, with data filled into its
// template ({{.Name}}). A message missing in that language comes in English;
// one missing everywhere comes back as its id, so a gap shows, never blanks.
func (l Localizer) T(id string, data map[string]any) string {
	return l.localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: data})
}

// Plural is T for a message with plural forms (one, other, ...), choosing
// the form for count in the reader's language. count is also available to
// the template as {{.Count}} unless data sets it.
func (l Localizer) Plural(id string, count int, data map[string]any) string {
	d := make(map[string]any, len(data)+1)
	d["Count"] = count
	for k, v := range data {
		d[k] = v
	}
	return l.localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: d, PluralCount: count})
}

func (l Localizer) localize(lc *goi18n.LocalizeConfig) string {
	if l.l == nil {
		return lc.MessageID
	}
	// A message found only in English comes with an error and its text;
	// only no text at all falls back to the id.
	if s, _ := l.l.Localize(lc); s != "" {
		return s
	}
	return lc.MessageID
}

type localizerKey struct{}

// With returns a context carrying l.
func With(ctx context.Context, l Localizer) context.Context {
	return context.WithValue(ctx, localizerKey{}, l)
}

// From returns the context's localizer; without one, messages come back as
// their ids.
func From(ctx context.Context) Localizer {
	l, _ := ctx.Value(localizerKey{}).(Localizer)
	return l
}

// Middleware puts the localizer for each request's Accept-Language on its
// context (see From) and answers with Content-Language set to the language
// used. Vary: Accept-Language keeps shared caches from serving one
// reader's language to another.
func Middleware(c *Catalog) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			l := c.For(r.Header.Values("Accept-Language")...)
			h := w.Header()
			h.Set("Content-Language", l.Language())
			h.Add("Vary", "Accept-Language")
			next.ServeHTTP(w, r.WithContext(With(r.Context(), l)))
		})
	}
}
