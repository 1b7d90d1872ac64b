package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hearth-rpg/hearth/app"
	"github.com/hearth-rpg/hearth/config"
	"github.com/hearth-rpg/hearth/contextpack"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/world"
)

// TestOfflineProviderCallsTools: an offline role's provider reads tool
// calls with the offline game master's interpreter, so the agentic
// pipeline can play with no model.
func TestOfflineProviderCallsTools(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		role  config.Role
		input string
		calls []string
	}{
		{config.Role{}, "go north then talk to maren", []string{"move", "talk"}},
		{config.Role{Provider: "offline"}, "go north then search", []string{"move"}},
		{config.Role{Provider: "offline"}, "dance", nil},
	}
	for _, tt := range tests {
		p, err := app.NewProvider(ctx, tt.role, 0)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Chat(ctx, llm.Request{Tools: []llm.Tool{{Name: "move"}, {Name: "talk"}},
			Messages: []llm.Message{{Role: llm.User, Content: tt.input}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range resp.Message.ToolCalls {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tt.calls) {
			t.Errorf("%q: tool calls %v, want %v", tt.input, got, tt.calls)
		}
		if len(tt.calls) == 0 && resp.Message.Content == "" {
			t.Errorf("%q: neither tool calls nor words", tt.input)
		}
	}
}

// A party member's agent talks to the member's own provider and model,
// with the server and key of the configured role using that provider, and
// a member whose provider no role uses gets its provider's defaults.
func TestPartyAgentUsesTheMembersModel(t *testing.T) {
	ctx := context.Background()
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		got = append(got, body.Model+" "+r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"go north"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	cfg := config.Default()
	cfg.Storage.DataDir = t.TempDir()
	cfg.Models.Narrator = config.Role{Provider: "ollama", Model: "big"}
	cfg.Models.Summariser = config.Role{Provider: "openai", Model: "small", BaseURL: srv.URL + "/v1", APIKey: "k1"}
	a, err := app.Open(ctx, app.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()

	member := func(provider, model string) world.PartyMember {
		return world.PartyMember{Character: "hero", Controller: world.Controller{Kind: world.ControllerAI, Provider: provider, Model: model}}
	}
	roles := []struct {
		m    world.PartyMember
		want config.Role
	}{
		{member("openai", "pc-hero"), config.Role{Provider: "openai", Model: "pc-hero", BaseURL: srv.URL + "/v1", APIKey: "k1"}},
		{member("ollama", "qwen3"), config.Role{Provider: "ollama", Model: "qwen3"}},
		{member("anthropic", "claude"), config.Role{Provider: "anthropic", Model: "claude"}},
	}
	for _, tt := range roles {
		// The default budget and room for the answer: what Ollama is
		// asked to hold, so it cuts no prompt.
		tt.want.ContextWindow = contextpack.DefaultBudget + 2048
		if r := a.MemberRole(tt.m); r != tt.want {
			t.Errorf("%s: role %+v, want %+v", tt.m.Controller.Label(), r, tt.want)
		}
	}

	ag, err := a.PartyAgent(ctx, member("openai", "pc-hero"))
	if err != nil {
		t.Fatal(err)
	}
	w := world.New("d20")
	w.Characters = map[string]*world.Character{"hero": {ID: "hero", Name: "Hero", Sheet: world.Sheet{HP: 5, MaxHP: 5}}}
	w.Player = "hero"
	words, err := ag.Decide(ctx, w, member("openai", "pc-hero"))
	if err != nil {
		t.Fatal(err)
	}
	if words != "go north" || !slices.Equal(got, []string{"pc-hero Bearer k1"}) {
		t.Errorf("decided %q; the server saw %q", words, got)
	}
}

// The configuration's prompt versions win over a campaign's pins prompt
// by prompt; unpinned prompts keep their defaults.
func TestPromptPinsMerge(t *testing.T) {
	for _, tt := range []struct {
		name     string
		config   string
		campaign map[string]int
		want     map[string]string
	}{
		{"defaults", "", nil, map[string]string{"narrator": "narrator@1", "interpreter": "interpreter@1"}},
		{"campaign pin", "", map[string]int{"narrator": 2}, map[string]string{"narrator": "narrator@2", "interpreter": "interpreter@1"}},
		{"config over campaign", "narrator@1", map[string]int{"narrator": 2}, map[string]string{"narrator": "narrator@1", "interpreter": "interpreter@1"}},
		{"config and campaign together", "interpreter@2", map[string]int{"narrator": 2}, map[string]string{"narrator": "narrator@2", "interpreter": "interpreter@2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Storage.DataDir = t.TempDir()
			cfg.Models.PromptVersions = tt.config
			a, err := app.Open(context.Background(), app.Options{Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			reg, err := a.Prompts(tt.campaign)
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.want {
				if tm, err := reg.Get(name); err != nil || tm.ID() != want {
					t.Errorf("%s: %v, %v; want %s", name, tm, err, want)
				}
			}
			if tt.campaign != nil && len(tt.campaign) != 1 {
				t.Errorf("the campaign's pins were changed: %v", tt.campaign)
			}
		})
	}
}

// Chats that stream from an OpenAI-compatible server at the same time
// each need a connection; once they end, the next ones should reuse
// them. With Go's default client (2 idle connections per host) every
// chat of a second wave dialled the server again.
func TestProviderReusesConnections(t *testing.T) {
	const chats = 8
	var dials atomic.Int32
	// Each wave's requests are answered once all have arrived, so that
	// they hold their connections at once.
	arrived := make(chan struct{}, chats)
	var mu sync.Mutex
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		wait := release
		mu.Unlock()
		arrived <- struct{}{}
		<-wait
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`+"\n\n")
		w.(http.Flusher).Flush()
		// [DONE] and the body's end in one write: the client has read
		// the whole body when it sees [DONE], so its connection is back
		// in the pool when the chat returns.
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	p, err := app.NewProvider(context.Background(), config.Role{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "k"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	wave := func() {
		var wg sync.WaitGroup
		for range chats {
			wg.Go(func() {
				_, err := p.Chat(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.User, Content: "hello"}}}, nil)
				if err != nil {
					t.Error(err)
				}
			})
		}
		for range chats {
			<-arrived
		}
		mu.Lock()
		close(release)
		release = make(chan struct{})
		mu.Unlock()
		wg.Wait()
	}
	wave()
	if n := dials.Load(); n != chats {
		t.Fatalf("%d chats at once opened %d connections, want %d", chats, n, chats)
	}
	wave()
	if n := dials.Load(); n != chats {
		t.Errorf("a second wave of %d chats opened %d more connections, want none", chats, n-chats)
	}
}
