package llmassist

import (
	"bytes"
	"context"
	"image"
	"image/draw"
	"image/jpeg"

	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	xdraw "golang.org/x/image/draw"
	xwebp "golang.org/x/image/webp"

	"github.com/hearth-rpg/hearth/ingest/pipeline"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
)

// Prompt versions: a change of wording is a new version, so checkpoints
// made with the old one are not reused.
const (
	checkVersion   = "classify@1"
	captionVersion = "caption@1"
)

// CaptionPrompt is seed 000's caption prompt (§4.8.4).
const CaptionPrompt = "Describe this image concisely for use in a tabletop RPG context. " +
	"Focus on what it depicts (map, character, creature, equipment, etc.) and key visual details."

const (
	defaultSectionChars = 6000
	defaultImageBytes   = 15 << 20
	// DefaultMaxSide is the long side, in pixels, larger images are
	// scaled down to before a vision model sees them: Anthropic's
	// advice, and more than OpenAI's and Gemini's models look at. A
	// full-page scan costs several times the tokens and gains nothing.
	DefaultMaxSide      = 1568
	jpegQuality         = 85
	maxContextChars     = 600
	maxDescriptionChars = 2000
)

// Checker checks the rule-based class of a section with a language
// model. It is safe for concurrent use if its Provider is.
type Checker struct {
	Provider llm.Provider
	Model    string
	// MaxChars caps the section text sent; default 6,000 characters
	// (a section is about 600 words).
	MaxChars int
	spec     *structured.Spec[verdict]
}

var (
	_ pipeline.Checker = (*Checker)(nil)
	_ pipeline.Keyed   = (*Checker)(nil)
)

// verdict is the model's answer.
type verdict struct {
	Label string `json:"label" jsonschema:"lore (setting: history, places, peoples, story), systems (rules: mechanics, statistics, tables of numbers) or both"`
}

// NewChecker returns a Checker asking model on p.
func NewChecker(p llm.Provider, model string) (*Checker, error) {
	spec, err := structured.New[verdict]("classification")
	if err != nil {
		return nil, err
	}
	spec.Check = func(v verdict) error {
		switch v.Label {
		case pipeline.Lore, pipeline.Systems, pipeline.Both:
			return nil
		}
		return fmt.Errorf("label %q is not lore, systems or both", v.Label)
	}
	return &Checker{Provider: p, Model: model, spec: spec}, nil
}

// Key names the model and prompt, for checkpoints.
func (c *Checker) Key() string { return checkVersion + ":" + c.Provider.Name() + "/" + c.Model }

const checkSystem = `You sort the sections of tabletop role-playing game books for a game master's library.
Label a section "lore" when it is setting: history, places, peoples, characters, story, advice on running the world.
Label it "systems" when it is rules: mechanics, procedures, character options, statistics, tables of numbers.
Label it "both" only when it has a substantial amount of each.
Answer with JSON only.`

// Classify returns lore, systems or both for a section.
func (c *Checker) Classify(ctx context.Context, title, text string, rule pipeline.Class) (string, error) {
	if c.spec == nil {
		return "", errors.New("llmassist: use NewChecker")
	}
	text = cut(text, cmpOr(c.MaxChars, defaultSectionChars))
	user := fmt.Sprintf("Section: %s\n\nA rule-based classifier says %q (mechanics signals %.1f, setting signals %.1f per 100 words). Check it.\n\n<section>\n%s\n</section>",
		title, rule.Label, rule.Systems, rule.Lore, text)
	temp := 0.0
	v, _, err := c.spec.Call(ctx, c.Provider, llm.Request{
		Model:       c.Model,
		Messages:    []llm.Message{{Role: llm.System, Content: checkSystem}, {Role: llm.User, Content: user}},
		Temperature: &temp,
		MaxTokens:   100,
	})
	if err != nil {
		return "", err
	}
	return v.Label, nil
}

// Captioner describes images with a vision model. It is safe for
// concurrent use if its Provider is.
type Captioner struct {
	Provider llm.Provider
	Model    string
	// MaxBytes skips larger images (an error for that image), after
	// scaling: providers refuse huge uploads. Default 15 MiB.
	MaxBytes int
	// MaxSide is the long side larger images are scaled down to, in
	// pixels; DefaultMaxSide when zero, no scaling when negative.
	MaxSide int
}

var (
	_ pipeline.Captioner = (*Captioner)(nil)
	_ pipeline.Keyed     = (*Captioner)(nil)
)

// Key names the model and prompt, for checkpoints.
func (c *Captioner) Key() string { return captionVersion + ":" + c.Provider.Name() + "/" + c.Model }

// Caption asks for a description of an image (WebP or JPEG, as
// mediaType says), giving the model the text near it on its page.
func (c *Captioner) Caption(ctx context.Context, data []byte, mediaType, near string) (string, error) {
	side := c.MaxSide
	if side == 0 {
		side = DefaultMaxSide
	}
	img, err := fitImage(llm.Image{MIMEType: mediaType, Data: data}, side)
	if err != nil {
		return "", err
	}
	if limit := cmpOr(c.MaxBytes, defaultImageBytes); len(img.Data) > limit {
		return "", fmt.Errorf("the image is %d bytes, more than the %d sent to a vision model", len(img.Data), limit)
	}
	prompt := CaptionPrompt
	if near = strings.Join(strings.Fields(near), " "); near != "" {
		prompt += "\n\nText printed near the image on its page (it may be its caption): " + cut(near, maxContextChars)
	}
	temp := 0.0
	resp, err := c.Provider.Chat(ctx, llm.Request{
		Model: c.Model,
		Messages: []llm.Message{{Role: llm.User, Content: prompt,
			Images: []llm.Image{img}}},
		Temperature: &temp,
		MaxTokens:   300,
	}, nil)
	if err != nil {
		return "", err
	}
	d := strings.Join(strings.Fields(resp.Message.Content), " ")
	if d == "" {
		return "", errors.New("the vision model gave an empty description")
	}
	return cut(d, maxDescriptionChars), nil
}

// cut shortens s to at most n bytes, at a space when there is one and
// never inside a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	if i := strings.LastIndexByte(s, ' '); i > n/2 {
		s = s[:i]
	}
	return s + "…"
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// fitImage scales a WebP or JPEG image whose long side is over maxSide down to
// maxSide, as a JPEG over white (vision models take JPEG everywhere, and a
// photograph-like scan is far smaller so). An image that fits, or whose
// header cannot be read, goes as it is: the model may still read it.
func fitImage(img llm.Image, maxSide int) (llm.Image, error) {
	if maxSide <= 0 {
		return img, nil
	}
	decodeConfig, decode := xwebp.DecodeConfig, xwebp.Decode
	if img.MIMEType == "image/jpeg" {
		decodeConfig, decode = jpeg.DecodeConfig, jpeg.Decode
	}
	cfg, err := decodeConfig(bytes.NewReader(img.Data))
	if err != nil || max(cfg.Width, cfg.Height) <= maxSide {
		return img, nil
	}
	src, err := decode(bytes.NewReader(img.Data))
	if err != nil {
		return llm.Image{}, fmt.Errorf("scale a %d×%d image for the vision model: %w", cfg.Width, cfg.Height, err)
	}
	w, h := cfg.Width, cfg.Height
	if w >= h {
		w, h = maxSide, max(1, h*maxSide/w)
	} else {
		w, h = max(1, w*maxSide/h), maxSide
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, dst, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return llm.Image{}, fmt.Errorf("scale a %d×%d image for the vision model: %w", cfg.Width, cfg.Height, err)
	}
	return llm.Image{MIMEType: "image/jpeg", Data: buf.Bytes()}, nil
}
