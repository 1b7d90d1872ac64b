package llmassist

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

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
	// MaxBytes skips larger images (an error for that image): providers
	// refuse huge uploads. Default 15 MiB.
	MaxBytes int
}

var (
	_ pipeline.Captioner = (*Captioner)(nil)
	_ pipeline.Keyed     = (*Captioner)(nil)
)

// Key names the model and prompt, for checkpoints.
func (c *Captioner) Key() string { return captionVersion + ":" + c.Provider.Name() + "/" + c.Model }

// Caption asks for a description of a WebP image, giving the model the
// text near it on its page.
func (c *Captioner) Caption(ctx context.Context, webp []byte, near string) (string, error) {
	if limit := cmpOr(c.MaxBytes, defaultImageBytes); len(webp) > limit {
		return "", fmt.Errorf("the image is %d bytes, more than the %d sent to a vision model", len(webp), limit)
	}
	prompt := CaptionPrompt
	if near = strings.Join(strings.Fields(near), " "); near != "" {
		prompt += "\n\nText printed near the image on its page (it may be its caption): " + cut(near, maxContextChars)
	}
	temp := 0.0
	resp, err := c.Provider.Chat(ctx, llm.Request{
		Model: c.Model,
		Messages: []llm.Message{{Role: llm.User, Content: prompt,
			Images: []llm.Image{{MIMEType: "image/webp", Data: webp}}}},
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
