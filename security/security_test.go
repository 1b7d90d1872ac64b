package security

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/imagegen/imagegentest"
	"github.com/hearth-rpg/hearth/internal/hearthtest"
	"github.com/hearth-rpg/hearth/internal/pgdb/pgtest"
)

// hearthBin is the binary built once in TestMain.
var hearthBin string

func TestMain(m *testing.M) {
	bin, remove, err := hearthtest.Build("../cmd/hearth")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hearthBin = bin
	code := m.Run()
	remove()
	os.Exit(code)
}

// The secrets. Each marker is a word that appears only in GM-only text and
// that no attack ever sends, so a response holding it is a leak and never
// an echo of the request. The attacks search with the words around each
// marker (harbourmaster, cultist, …), which a player may send.
const (
	// docMarker is in the GM-only book's body, docTitleMarker in its title.
	docMarker      = "varnquill"
	docTitleMarker = "zorblatt"
	// campaignMarker is an NPC's unrevealed secret in the test campaign.
	campaignMarker = "plumbrigand"
	// whisperMarker is in a whisper to that NPC, not to the player's
	// character.
	whisperMarker = "gallowtwine"
	// characterMarker is in the name and so the backstory of a character
	// in bob's library, which another player must never read.
	characterMarker = "hollowmarrow"
	// playerMarker is in a book players may read: the player positive
	// control, proving the player's searches work at all.
	playerMarker = "quaywright"
)

const gmBook = `# Dossier Zorblatt

The harbourmaster Orrin Vask is secretly a cultist of the drowned star. His
password for the sunken archive is VARNQUILL, and he meets the cult at the
old tide mill on moonless nights.
`

const playerBook = `# Harbour Guide

The harbour of Saltreach is run by the Quaywright guild, who keep the tide
tables, mend the nets and sell fresh bread to sailors at dawn.
`

// campaign is a tiny campaign: the player's character in a hall with an
// NPC whose secret holds campaignMarker, and an event at the start that
// whispers whisperMarker to that NPC.
var campaign = map[string]string{
	// Art a browser shows through the campaign asset route.
	"art/characters/duke.png":              "not a real png, served as one",
	"art/characters/duke.png.keywords.txt": "duke\n",
	"campaign.yml": `title: The Vault Test
version: 1.0.0
description: A tiny campaign holding GM secrets for the security suite.
system: d20
player: hero
start:
  location: hall
  time: "08:00"
  day: 1
  scene: The hall
scheduled_events:
  - id: murmur
    at: "day 1 08:00"
    description: A draught stirs the tapestries.
    then:
      - {type: whisper, to: spy, text: "The vault code is GALLOWTWINE; tell the duke and no one else."}
`,
	"location_hall.md": `---
entity_type: location
entity_id: hall
name: Great Hall
aliases: [hall]
---
A long hall hung with faded tapestries.
`,
	"character_hero.md": `---
entity_type: player_character
entity_id: hero
name: Hero Ashdown
race: human
class: fighter
level: 1
abilities: {strength: 14, dexterity: 12, constitution: 14, intelligence: 10, wisdom: 10, charisma: 10}
hit_points: 12
armor_class: 14
---
A plain traveller.
`,
	"npc_spy.md": `---
entity_type: npc
entity_id: spy
name: Mira Tallow
aliases: [mira, spy]
location: hall
disposition: friendly
personality: Quiet and watchful.
secret: Mira is the duke's assassin and her true name is PLUMBRIGAND.
---
A woman in grey sits by the hearth.
`,
}

// fixture is a running server over a data directory holding the secrets.
type fixture struct {
	url              string
	gm, ann, bob     string // API keys: the GM and two players
	agent            string // a player key kept for the MCP burst
	gmDoc, playerDoc string // document ids
	gmAtlas          string // the GM-only EPUB, holding an image
	gmImage          string // that image's id
	gmImageData      []byte // and its bytes
	gmChart          string // the GM-only PDF, holding a JPEG picture
	gmJPEG           string // that picture's id
	gmJPEGData       []byte // and its bytes
	game             string // the game's session id
	party            string // the party game's session id (partyGame)
	log              *lockedBuffer
	drawer           *imagegentest.Server // the fake image provider the server draws with
	dir              string               // the data directory

}

var keyRE = regexp.MustCompile(`hth_[a-z0-9_]+`)

// runEnv runs the binary with env added to the test's environment and
// returns its stdout, failing on a non-zero exit.
func runEnv(t *testing.T, env []string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(hearthBin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hearth %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// setup makes the data directory, starts `hearth serve` on it and finds
// the ids the attacks aim at. env is added to every command's
// environment: it chooses the database (HEARTH__DATABASE__URL).
func setup(t *testing.T, env ...string) *fixture {
	t.Helper()
	run := func(t *testing.T, stdin string, args ...string) string {
		t.Helper()
		return runEnv(t, env, stdin, args...)
	}
	dir := t.TempDir()
	books := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(books, "dossier.md"), gmBook)
	write(filepath.Join(books, "guide.md"), playerBook)
	run(t, "", "ingest", filepath.Join(books, "dossier.md"), "--access", "gm_only", "--tags", "plot", "--data", dir)
	writeAtlas(t, filepath.Join(books, "atlas.epub"))
	run(t, "", "ingest", filepath.Join(books, "atlas.epub"), "--access", "gm_only", "--data", dir)
	writeChart(t, filepath.Join(books, "chart.pdf"))
	run(t, "", "ingest", filepath.Join(books, "chart.pdf"), "--access", "gm_only", "--data", dir)
	run(t, "", "ingest", filepath.Join(books, "guide.md"), "--access", "player", "--tags", "plot", "--data", dir)
	camp := filepath.Join(dir, "campaigns", "vault")
	for name, text := range campaign {
		write(filepath.Join(camp, name), text)
	}
	for name, text := range partyCampaign {
		write(filepath.Join(dir, "campaigns", "party", name), text)
	}
	for name, text := range moduleCampaign {
		write(filepath.Join(dir, "campaigns", "module", name), text)
	}
	// One turn fires the start event, which sends the whisper.
	run(t, "look\n", "play", "--new", "--seed", "1", "--data", dir, "--campaign", camp)
	f := &fixture{log: &lockedBuffer{}, dir: dir}
	for _, u := range []struct {
		name, role string
		key        *string
	}{{"gm", "gm", &f.gm}, {"ann", "player", &f.ann}, {"bob", "player", &f.bob}, {"agent", "player", &f.agent}} {
		*u.key = keyRE.FindString(run(t, "", "user", "add", u.name, "--role", u.role, "--data", dir))
		if *u.key == "" {
			t.Fatalf("no key printed for %s", u.name)
		}
	}
	// Scene images on, drawn by a local server speaking the OpenAI Images
	// API, so that the image routes serve something to attack.
	f.drawer = imagegentest.OpenAI(t)
	f.url = serve(t, dir, f.log, append([]string{"HEARTH__IMAGES__PROVIDER=openai", "HEARTH__IMAGES__BASE_URL=" + f.drawer.Base,
		"HEARTH__IMAGES__API_KEY=" + imagegentest.Key}, env...)...)
	return f
}

// serve runs `hearth serve` on a free port of 127.0.0.1 until the test
// ends. The chat budget is raised (the suite sends hundreds of requests
// with one player's key); the MCP budget keeps its default, which
// TestNoLeaks checks holds an agent's burst.
func serve(t *testing.T, dir string, log *lockedBuffer, env ...string) string {
	t.Helper()
	return hearthtest.Server{Bin: hearthBin, Data: dir, Log: log.WriteLine,
		Env: append([]string{"HEARTH__LOG__LEVEL=info", "HEARTH__LIMITS__RATE_LIMIT_RPM=100000", "HEARTH__LIMITS__RATE_LIMIT_BURST=100000", "HEARTH__LIMITS__API_RPM=1000000"}, env...)}.Start(t)
}

// lockedBuffer keeps the server's log lines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) WriteLine(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s)
	l.b.WriteByte('\n')
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// suite counts attempts and leaks and records which routes were attacked.
type suite struct {
	t        *testing.T
	f        *fixture
	client   *http.Client
	mu       sync.Mutex
	attempts int
	leaks    []string
	covered  map[string]bool

	// Set by the positive controls and the MCP attacks.
	gmConversation, annConversation, bobConversation string
	bobCharacter                                     string // in bob's character library
	sceneImage                                       string // drawn by the GM
	gmMCPSession                                     string

	// The party game (partyGame): ann's and bob's sockets, held open so
	// that they keep their characters, and the ids of the whispers.
	annSocket, bobSocket  *wsClient
	gmWhisper, bobWhisper string
}

// markers are what must never reach a player or an anonymous client.
func (s *suite) markers() []string {
	return []string{docMarker, docTitleMarker, campaignMarker, whisperMarker, characterMarker, gmWhisperMarker, bobWhisperMarker, moduleMarker}
}

// check counts one attempt on route and reports a leak if what came back
// (headers, body, frames: all of got) holds a secret. The GM-only book's id
// counts as a secret unless the attacker sent it (an error may name the id
// it was asked for).
func (s *suite) check(name, route, sent string, got ...string) {
	s.t.Helper()
	s.mu.Lock()
	s.attempts++
	if route != "" {
		s.covered[route] = true
	}
	s.mu.Unlock()
	if what, at := leak(s.secrets(), sent, got...); what != "" {
		s.mu.Lock()
		s.leaks = append(s.leaks, name)
		s.mu.Unlock()
		s.t.Errorf("LEAK in %s (%s): %s in …%s…", name, route, what, at)
	}
}

// secrets are what must never reach a player or an anonymous client.
type secrets struct {
	markers []string // case-insensitive words
	ids     []string // secret unless the attacker sent them
	data    [][]byte // the GM-only pictures' bytes
}

func (s *suite) secrets() secrets {
	return secrets{markers: s.markers(), ids: []string{s.f.gmDoc, s.f.gmAtlas, s.f.gmChart}, data: [][]byte{s.f.gmImageData, s.f.gmJPEGData}}
}

// leak returns which secret got holds and the text around it, or "".
func leak(sec secrets, sent string, got ...string) (what, at string) {
	joined := strings.Join(got, "\n")
	for _, d := range sec.data {
		if len(d) > 0 && strings.Contains(joined, string(d)) {
			return "a GM-only picture's bytes", ""
		}
	}
	all := strings.ToLower(joined)
	markers := slices.Clone(sec.markers)
	for _, id := range sec.ids {
		if id != "" && !strings.Contains(strings.ToLower(sent), strings.ToLower(id)) {
			markers = append(markers, id)
		}
	}
	for _, m := range markers {
		if i := strings.Index(all, strings.ToLower(m)); i >= 0 {
			lo, hi := max(0, i-120), min(len(all), i+120)
			return fmt.Sprintf("%q", m), all[lo:hi]
		}
	}
	return "", ""
}

// The leak detector itself: a suite whose detector missed would pass.
func TestLeakDetector(t *testing.T) {
	sec := secrets{markers: []string{docMarker, whisperMarker}, ids: []string{"30b922b3f3875acf"}, data: [][]byte{[]byte("\x00RIFFwebp"), []byte("\xff\xd8\xffjpeg")}}
	for _, c := range []struct {
		name, sent string
		got        []string
		leaked     bool
	}{
		{"marker in a body", "", []string{"", `{"text":"the password is VARNQUILL"}`}, true},
		{"marker in a header", "", []string{"X-Note: Gallowtwine\n", "{}"}, true},
		{"marker in JSON-escaped text", "", []string{`"the code is GALLOWTWINE;"`}, true},
		{"id not sent", "/api/documents/other", []string{"see 30B922B3F3875ACF"}, true},
		{"id the attacker sent, echoed", "/api/documents/30B922B3F3875ACF", []string{"no document 30b922b3f3875acf"}, false},
		{"image bytes", "", []string{"xx\x00RIFFwebpyy"}, true},
		{"JPEG picture bytes", "", []string{"xx\xff\xd8\xffjpegyy"}, true},
		{"nothing", "", []string{"401 Unauthorized", "harbour guide"}, false},
	} {
		if what, _ := leak(sec, c.sent, c.got...); (what != "") != c.leaked {
			t.Errorf("%s: leak %q, want leaked %v", c.name, what, c.leaked)
		}
	}
}

// request is one HTTP attempt.
type request struct {
	name   string
	route  string // the mux pattern it attacks
	key    string // "" for none
	method string
	path   string // raw path and query, sent as is
	body   string
	header map[string]string
}

// do sends r, checks the answer for secrets and returns its status and
// body.
func (s *suite) do(r request) (int, string) {
	s.t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req, err := http.NewRequest(r.method, s.f.url+"/", body)
	if err != nil {
		s.t.Fatalf("%s: %v", r.name, err)
	}
	// The path goes on the request line exactly as written: no cleaning,
	// no re-encoding.
	req.URL.Opaque = r.path
	if i := strings.IndexByte(r.path, '?'); i >= 0 {
		req.URL.Opaque, req.URL.RawQuery = r.path[:i], r.path[i+1:]
	}
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err == nil && r.key != "" && resp.StatusCode == http.StatusTooManyRequests {
		// A throttled attack proves nothing.
		s.t.Errorf("%s: 429: the suite's own requests were throttled", r.name)
	}
	if err != nil {
		// A refused connection or reset is no leak, but it is an attempt.
		s.check(r.name, r.route, r.path+r.body)
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var hdr strings.Builder
	resp.Header.Write(&hdr)
	s.check(r.name, r.route, r.path+r.body+fmt.Sprint(r.header), hdr.String(), string(b))
	return resp.StatusCode, string(b)
}

// TestNoLeaks is the regression suite: every attack a player, a bad key or
// no key can make, each counted, with positive controls for the GM. It
// runs on SQLite, and again on PostgreSQL (in a schema of its own) when
// HEARTH_TEST_POSTGRES_URL names a test database: the stores' access
// checks are written once per backend, so each must hold. The two runs
// are parallel, so the suite's time stays near one run's.
func TestNoLeaks(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		noLeaks(t)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		noLeaks(t, "HEARTH__DATABASE__URL="+pgtest.URL(t))
	})
}

func noLeaks(t *testing.T, env ...string) {
	f := setup(t, env...)
	s := &suite{t: t, f: f, covered: map[string]bool{},
		client: &http.Client{Timeout: 90 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if len(env) > 0 {
		// The run is on PostgreSQL indeed, not on a SQLite fallback.
		if _, body := s.get("", "/health"); !strings.Contains(body, `"backend":"postgres"`) {
			t.Fatalf("the server is not on PostgreSQL: %s", body)
		}
	}
	s.findIDs()
	s.controls()
	s.partyGame()

	s.unauthenticated()
	s.search()
	s.documents()
	s.images()
	s.chat()
	s.conversations()
	s.characters()
	s.misc()
	s.gameREST()
	s.sceneImages()
	s.gameSocket()
	s.partySocket()
	s.partyREST()
	s.browserSessions()
	s.settings()
	s.mcp()
	s.throttle()

	t.Logf("security: %d attempts, %d leaks", s.attempts, len(s.leaks))
	if len(s.leaks) > 0 {
		t.Errorf("leaking attempts: %s", strings.Join(s.leaks, "; "))
	}
	if s.attempts < 200 {
		t.Errorf("only %d attempts; the suite should make at least 200", s.attempts)
	}
	var missing []string
	for _, r := range servedRoutes(t) {
		if !s.covered[r] {
			missing = append(missing, r)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("routes with no attack (add them to attacks_test.go): %s", strings.Join(missing, ", "))
	}
	// Session ids open sessions: the log never holds one.
	if id := s.gmMCPSession; id != "" && strings.Contains(f.log.String(), id) {
		t.Errorf("the server logged the GM's MCP session id")
	}
}

// findIDs reads, as the GM, the ids the attacks aim at.
func (s *suite) findIDs() {
	t := s.t
	_, body := s.get(s.f.gm, "/api/documents")
	var docs struct {
		Documents []struct{ ID, Title string } `json:"documents"`
	}
	if err := json.Unmarshal([]byte(body), &docs); err != nil {
		t.Fatalf("documents: %v\n%s", err, body)
	}
	for _, d := range docs.Documents {
		switch d.Title {
		case "Dossier Zorblatt":
			s.f.gmDoc = d.ID
		case "Harbour Guide":
			s.f.playerDoc = d.ID
		case "Atlas Zorblatt":
			s.f.gmAtlas = d.ID
		case "Chart Zorblatt":
			s.f.gmChart = d.ID
		}
	}
	_, body = s.get(s.f.gm, "/api/images?document_id="+s.f.gmAtlas)
	var ims struct {
		Images []struct {
			ID int `json:"id"`
		} `json:"images"`
	}
	if err := json.Unmarshal([]byte(body), &ims); err != nil || len(ims.Images) == 0 {
		t.Fatalf("the GM-only atlas has no image: %v\n%s", err, body)
	}
	s.f.gmImage = fmt.Sprint(ims.Images[0].ID)
	code, data := s.get(s.f.gm, "/api/images/"+s.f.gmImage+"/data")
	if code != 200 || len(data) < 64 {
		t.Fatalf("the GM cannot read the atlas's image: %d", code)
	}
	s.f.gmImageData = []byte(data)
	_, body = s.get(s.f.gm, "/api/images?document_id="+s.f.gmChart)
	var charts struct {
		Images []struct {
			ID        int    `json:"id"`
			MediaType string `json:"media_type"`
		} `json:"images"`
	}
	if err := json.Unmarshal([]byte(body), &charts); err != nil || len(charts.Images) != 1 || charts.Images[0].MediaType != "image/jpeg" {
		t.Fatalf("the GM-only chart has no JPEG picture: %v\n%s", err, body)
	}
	s.f.gmJPEG = fmt.Sprint(charts.Images[0].ID)
	req, _ := http.NewRequest("GET", s.f.url+"/api/images/"+s.f.gmJPEG+"/data", nil)
	req.Header.Set("Authorization", "Bearer "+s.f.gm)
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	jpegData, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" || resp.Header.Get("X-Content-Type-Options") != "nosniff" || !bytes.HasPrefix(jpegData, []byte("\xff\xd8")) {
		t.Fatalf("the GM reads the chart's picture as %d %q (nosniff %q), %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("X-Content-Type-Options"), len(jpegData))
	}
	s.f.gmJPEGData = jpegData
	_, body = s.get(s.f.gm, "/api/sessions")
	var games struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(body), &games); err != nil || len(games.Sessions) != 1 {
		t.Fatalf("sessions: %v\n%s", err, body)
	}
	s.f.game = games.Sessions[0].ID
	if s.f.gmDoc == "" || s.f.playerDoc == "" || s.f.gmAtlas == "" {
		t.Fatalf("the books are not both in the library: %s", body)
	}
}

// get is the GM's (or anyone's) plain GET, for setup and controls; it is
// not counted as an attempt.
func (s *suite) get(key, path string) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.f.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post is get's POST.
func (s *suite) post(key, path, body string) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.f.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// mustHave fails the test when a positive control does not see marker.
func (s *suite) mustHave(what, body, marker string) {
	s.t.Helper()
	if !strings.Contains(strings.ToLower(body), marker) {
		s.t.Errorf("positive control %s: %q not there, so the suite proves nothing about it:\n%.600s", what, marker, body)
	}
}
