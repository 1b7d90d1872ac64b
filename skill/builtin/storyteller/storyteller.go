// Package storyteller is the storyteller skill's program (script
// "narrate", seed 001 §4.1.1): two or three paragraphs of narration of the
// scene the game hands it, grounded in what the scene says — the place,
// who is there and what they think of the player, the ways on — and in
// the memories the host API recalls for the player's words. With a model
// configured (provider ollama or openai, any OpenAI-compatible chat API)
// the model writes the prose from the same facts; when it fails or is
// slow the offline narration is used and the fallback logged.
package storyteller

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/protocol"
)

// EnvAPIKey carries the apiKey setting (it is sensitive: never on stdin).
const EnvAPIKey = "STORYTELLER_API_KEY"

// scene is what the game tells the skill (the player-choices scene, with
// the location's description).
type scene struct {
	Location struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Exits       []struct {
			Direction string `json:"direction"`
			To        string `json:"to"`
			Name      string `json:"name"`
			Locked    bool   `json:"locked"`
		} `json:"exits"`
	} `json:"location"`
	Present []struct {
		Name       string  `json:"name"`
		Perception float64 `json:"perception"`
		Hostile    bool    `json:"hostile"`
	} `json:"present"`
	InCombat bool `json:"in_combat"`
}

// Run is the whole program; it returns the exit status.
func Run(stdin io.Reader, stdout, stderr io.Writer) int {
	out := protocol.NewWriter(stdout)
	in, err := protocol.ReadInput(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "narrate:", err)
		return 2
	}
	out.RequestID = in.RequestID
	var sc scene
	action, _ := in.Input["action"].(string)
	switch s := in.Input["scene"].(type) {
	case string: // only the player's words
		if action == "" {
			action = s
		}
	case map[string]any:
		b, _ := json.Marshal(s)
		_ = json.Unmarshal(b, &sc)
	}
	var memories []string
	if c, err := host.FromEnv(); err == nil && strings.TrimSpace(action) != "" {
		ms, err := c.Recall(action, 2)
		if err != nil {
			out.Emit(&protocol.Log{Level: protocol.LevelWarn, Message: "recalling memories: " + err.Error()})
		}
		for _, m := range ms {
			memories = append(memories, m.Summary)
		}
	}
	style, _ := in.Config["style"].(string)
	text, source := offline(sc, memories, style), "offline"
	if p, _ := in.Config["provider"].(string); p == "ollama" || p == "openai" {
		prose, err := withModel(in.Config, sc, memories, action, style)
		if err != nil {
			out.Emit(&protocol.Log{Level: protocol.LevelWarn, Message: fmt.Sprintf("%s failed (%v); falling back to offline narration", p, err)})
		} else {
			text, source = prose, p
		}
	}
	if sc.Location.Name == "" {
		out.Emit(&protocol.Log{Level: protocol.LevelWarn, Message: "no data for the location: narration is generic"})
	} else {
		out.Emit(&protocol.Log{Level: protocol.LevelDebug, Message: "Grounded the scene in location " + sc.Location.Name})
	}
	out.Emit(&protocol.UIEvent{Event: "narration", Payload: map[string]any{"text": text, "source": source}})
	if err := out.Emit(&protocol.Done{OK: true, Summary: "narrated (" + source + ")"}); err != nil {
		return 1
	}
	return 0
}

// offline narrates from the facts alone: the place, the people, the
// memories and the ways on, one paragraph each that has anything to say.
func offline(sc scene, memories []string, style string) string {
	var paras []string
	place := "You take in your surroundings."
	if sc.Location.Name != "" {
		place = "You take in " + sc.Location.Name + "."
	}
	if d := strings.TrimSpace(sc.Location.Description); d != "" {
		if style == "terse" {
			d, _, _ = strings.Cut(d, ". ")
			d = strings.TrimSuffix(d, ".") + "."
		}
		place += " " + d
	}
	if sc.InCombat {
		place += " There is no time to linger: the fight is on."
	}
	paras = append(paras, place)
	var people []string
	for _, p := range sc.Present {
		switch {
		case p.Hostile:
			people = append(people, p.Name+" bristles at the sight of you.")
		case p.Perception >= 30:
			people = append(people, p.Name+" gives you a welcoming nod.")
		case p.Perception <= -30:
			people = append(people, p.Name+" watches you with open distrust.")
		default:
			people = append(people, p.Name+" is here, minding their own business.")
		}
	}
	if len(people) > 0 {
		paras = append(paras, strings.Join(people, " "))
	}
	var last []string
	for _, m := range memories {
		last = append(last, "You remember: "+strings.TrimSuffix(m, ".")+".")
	}
	var ways []string
	for _, e := range sc.Location.Exits {
		w := e.Name
		if w == "" {
			w = e.To
		}
		if e.Direction != "" {
			w = e.Direction + " to " + w
		}
		if e.Locked {
			w += " (locked)"
		}
		ways = append(ways, w)
	}
	if len(ways) > 0 {
		last = append(last, "From here the way leads "+strings.Join(ways, ", ")+".")
	}
	if len(last) > 0 {
		paras = append(paras, strings.Join(last, " "))
	}
	if style == "poetic" && len(paras) > 0 {
		paras[0] += " The moment hangs, quiet as held breath."
	}
	return strings.Join(paras, "\n\n")
}

// withModel asks an OpenAI-compatible chat API for the prose, within the
// configured timeout (default 8 seconds, so a fallback comes in under ten).
func withModel(cfg map[string]any, sc scene, memories []string, action, style string) (string, error) {
	provider, _ := cfg["provider"].(string)
	base, _ := cfg["baseURL"].(string)
	if base == "" {
		base = map[string]string{"ollama": "http://127.0.0.1:11434/v1", "openai": "https://api.openai.com/v1"}[provider]
	}
	model, _ := cfg["model"].(string)
	if model == "" {
		return "", fmt.Errorf("no model configured: hearth skill config storyteller model=NAME")
	}
	timeout := 8 * time.Second
	if s, ok := cfg["timeoutSeconds"].(float64); ok && s > 0 {
		timeout = time.Duration(s * float64(time.Second))
	}
	facts, _ := json.Marshal(map[string]any{"scene": sc, "memories": memories})
	prompt := fmt.Sprintf("Narrate this scene in two or three short paragraphs, %s style, second person. "+
		"Use the facts exactly as given; invent nothing that contradicts them.\nPlayer: %s\nFacts: %s", cmpOr(style, "vivid"), action, facts)
	body, _ := json.Marshal(map[string]any{"model": model, "messages": []map[string]string{
		{"role": "system", "content": "You are the storyteller of a tabletop role-playing game."},
		{"role": "user", "content": prompt}}})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(base, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if key := os.Getenv(EnvAPIKey); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered %s", base, resp.Status)
	}
	var r struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r); err != nil {
		return "", err
	}
	if len(r.Choices) == 0 || strings.TrimSpace(r.Choices[0].Message.Content) == "" {
		return "", fmt.Errorf("the model returned no text")
	}
	return strings.TrimSpace(r.Choices[0].Message.Content), nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
