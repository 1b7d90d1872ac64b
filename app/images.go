package app

import (
	"context"
	"time"

	"github.com/hearth-rpg/hearth"

	"github.com/hearth-rpg/hearth/imagegen"
)

// Images is the scene-image store, in the games' database.
func (a *App) Images(context.Context) (imagegen.Store, error) { return a.db.Images, nil }

// ImageProvider is the configured image generator; nil, nil when [images]
// provider is empty (off, the default).
func (a *App) ImageProvider(ctx context.Context) (imagegen.Provider, error) {
	im := a.cfg.Images
	if !im.On() {
		return nil, nil
	}
	r := im.Role()
	key, err := apiKey(r)
	if err != nil {
		return nil, err
	}
	o := imagegen.Options{BaseURL: r.BaseURL, APIKey: key, Model: r.Model}
	var p imagegen.Provider
	switch r.Provider {
	case "openai":
		p, err = imagegen.NewOpenAI(o)
	case "gemini":
		p, err = imagegen.NewGemini(ctx, o)
	default:
		return nil, hearth.Errorf(hearth.Invalid, "images.provider %q: use openai or gemini, or leave it empty", r.Provider)
	}
	if err != nil {
		return nil, err
	}
	a.log.Info("scene images on", "provider", p.Name(), "model", p.Model(), "timeout", imagegen.DefaultTimeout.Round(time.Second).String())
	return p, nil
}
