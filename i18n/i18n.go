package i18n

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

//go:embed locales/*.toml
var locales embed.FS

// Catalog is the set of all messages in all languages.
type Catalog struct {
	bundle *goi18n.Bundle
}

// Load reads the embedded catalogs.
func Load() (*Catalog, error) {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	files, err := fs.Glob(locales, "locales/*.toml")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := locales.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if _, err := b.ParseMessageFileBytes(data, path.Base(f)); err != nil {
			return nil, fmt.Errorf("message catalog %s: %w", f, err)
		}
	}
	return &Catalog{bundle: b}, nil
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
type Localizer struct {
	l *goi18n.Localizer
}

// For returns a localizer for the given preferences, most preferred first:
// language tags or whole Accept-Language header values.
func (c *Catalog) For(langs ...string) Localizer {
	return Localizer{l: goi18n.NewLocalizer(c.bundle, langs...)}
}

// T returns message id in the reader's language, with data filled into its
// template ({{.Name}}). A message missing in that language comes in English;
// one missing everywhere comes back as its id, so a gap shows, never blanks.
func (l Localizer) T(id string, data map[string]any) string {
	if l.l == nil {
		return id
	}
	s, err := l.l.Localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil || s == "" {
		return id
	}
	return s
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
