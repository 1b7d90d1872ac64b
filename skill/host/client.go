package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Client is a skill's side of the API.
type Client struct {
	base, token string
	http        *http.Client
}

// ErrNoGrant says a script was run without a grant: outside a turn, or by
// a runtime that gives none.
var ErrNoGrant = errors.New("no " + EnvAPI + "/" + EnvToken + " in the environment: run me from a Hearth turn")

// FromEnv is the client for the grant in the environment.
func FromEnv() (*Client, error) {
	base, tok := os.Getenv(EnvAPI), os.Getenv(EnvToken)
	if base == "" || tok == "" {
		return nil, ErrNoGrant
	}
	return &Client{base: base, token: tok, http: &http.Client{Timeout: 10 * time.Second}}, nil
}

// Recall searches the playthrough's memories.
func (c *Client) Recall(query string, limit int) ([]Memory, error) {
	var out struct {
		Memories []Memory `json:"memories"`
	}
	err := c.do("POST", "/v1/memories/search", map[string]any{"query": query, "limit": limit}, &out)
	return out.Memories, err
}

// Remember stores a memory.
func (c *Client) Remember(m NewMemory) error { return c.do("POST", "/v1/memories", m, nil) }

// Reputation is the player's standing with a faction.
func (c *Client) Reputation(faction string) (int, error) {
	var out struct{ Reputation int }
	err := c.do("GET", "/v1/reputation/"+url.PathEscape(faction), nil, &out)
	return out.Reputation, err
}

// Perception is what an NPC thinks of the player.
func (c *Client) Perception(npc string) (int, error) {
	var out struct{ Perception int }
	err := c.do("GET", "/v1/perception/"+url.PathEscape(npc), nil, &out)
	return out.Perception, err
}

func (c *Client) do(method, path string, body, out any) error {
	var buf bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&buf).Encode(body); err != nil {
			return err
		}
	}
	req, err := http.NewRequest(method, c.base+path, &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("host API: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.NewDecoder(res.Body).Decode(&e)
		return fmt.Errorf("host API %s %s: %s: %s", method, path, res.Status, e.Error)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(res.Body).Decode(out)
}
