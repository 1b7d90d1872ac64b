package gameapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/game"
	"github.com/hearth-rpg/hearth/offlinegm"
	"github.com/hearth-rpg/hearth/store"
	"github.com/hearth-rpg/hearth/world"
)

// agentDM is who narrates, in turn_update and turn_delta.
const agentDM = "dm"

// byAutopilot is the By of a turn the autopilot chose.
const byAutopilot = "autopilot"

// safeActions are what the autopilot does when nothing better is offered.
var safeActions = []string{"look around", "wait"}

const (
	maxNudges = 8
	maxJobs   = 16
	maxRecent = 6
)

// live is a session open for play: one game.Session shared by every
// client, and a worker goroutine that plays its turns one at a time, human
// or autopilot, while anyone holds a reference (a client, a request, a
// queued turn, the running autopilot) and for Options.Linger after.
type live struct {
	srv *Server
	id  string

	ready chan struct{} // closed once open has finished
	err   error         // why open failed
	// gs is swapped when this process takes the game over (promote), while
	// requests and followers' handlers read it: always go through session().
	gs    atomic.Pointer[game.Session]
	title string
	camp  string

	// Guarded by srv.mu.
	refs     int
	idle     int // counts the times refs fell to 0, so a stale linger timer does nothing
	quitting bool
	quit     chan struct{} // closed to stop the worker
	done     chan struct{} // closed when the worker has exited

	jobs chan job
	wake chan struct{} // the autopilot's settings changed

	op sync.Mutex // one game operation at a time: turns, restore, fork, switch, delete

	// A game night (episode) begins when someone joins or plays and ends
	// when the session unloads.
	epMu    sync.Mutex
	episode bool

	mu       sync.Mutex // guards what follows
	clients  map[*client]struct{}
	snap     snapshot
	views    map[viewer]*world.State // of snap
	auto     bool
	speed    string
	controls map[string]*control // by character: who dropped in
	nudges   []game.Nudge
	rotate   int
	sup      game.Supervisor // who of the party acts next
	recent   []string        // the autopilot's last inputs
	await    game.Awaiting
	fails    int
	deleted  bool
	recap    string      // "previously", from the last game night
	modules  *ModuleList // the modules last offered the GM, for a choice
	// owner: this process plays the game (always, but with a Cluster);
	// else it mirrors the owner's table. quiet: a broadcast is part of
	// one already published.
	owner bool
	quiet bool
}

// snapshot is the state after the last operation: a private copy, never
// changed, that every view is cut from.
type snapshot struct {
	world  *world.State
	turn   int
	branch string
}

// control is a human holding a character: user (by name, as turns record
// it, and by id) through connection by; prev is who played it before, to
// whom it goes back.
type control struct {
	character, user, userID string
	by                      *client
	prev                    world.Controller
}

// viewer is what a view is cut for: an access level, and the character
// whose sheet and whispers are the viewer's ("" for none).
type viewer struct {
	level     access.Level
	character string
}

// job is a turn waiting for the worker.
type job struct {
	input string // what a human typed; "" with auto
	agent string // the character the human holds; "" for the one acting
	auto  bool   // an autopilot turn now (next_turn)
	by    string
}

func newLive(s *Server, id string) *live {
	return &live{srv: s, id: id, refs: 1, ready: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{}),
		jobs: make(chan job, maxJobs), wake: make(chan struct{}, 1), clients: map[*client]struct{}{}, controls: map[string]*control{}}
}

// session is the game as this process last read it.
func (l *live) session() *game.Session { return l.gs.Load() }

// open reads the game and claims it: the owner prepares it for play
// (and resumes an autopilot its last owner ran), a follower asks the
// owner for its table.
func (l *live) open(ctx context.Context) error {
	if l.srv.shared {
		// No lease for a game that is not there.
		if _, err := l.srv.o.Store.Session(ctx, l.id); err != nil {
			return fmt.Errorf("open game %s: %w", l.id, err)
		}
	}
	owner, auto, err := l.srv.cluster.Claim(ctx, lease(l.id))
	if err != nil {
		return fmt.Errorf("open game %s: %w", l.id, err)
	}
	var gs *game.Session
	if owner {
		gs, err = l.openSession(ctx)
	} else {
		gs, err = game.Open(ctx, l.srv.o.Store, l.id, game.Options{Logger: l.srv.log})
	}
	if err != nil {
		if owner {
			l.srv.cluster.Release(context.WithoutCancel(ctx), lease(l.id)) //nolint:errcheck // it expires anyway
		}
		return err
	}
	l.gs.Store(gs)
	l.title, l.camp = gs.Title(), gs.Campaign().Slug()
	l.speed = l.srv.knownSpeed(gs.Preference(speedPreference))
	l.await = game.Awaiting{Kind: game.FreeForm}
	l.owner = owner
	l.refresh(nil)
	if !owner {
		l.sync(ctx)
	} else if auto {
		l.srv.log.Info("resuming the autopilot of a game whose server stopped", "session", l.id)
		if err := l.startAutopilot(ctx, ""); err != nil {
			l.srv.log.Warn("resume the autopilot", "session", l.id, "err", err)
		}
	}
	return nil
}

// openSession reads the game from the store and prepares it for play.
func (l *live) openSession(ctx context.Context) (*game.Session, error) {
	gs, err := game.Open(ctx, l.srv.o.Store, l.id, game.Options{Logger: l.srv.log})
	if err != nil {
		return nil, err
	}
	if l.srv.o.Prepare != nil {
		if err := l.srv.o.Prepare(ctx, gs); err != nil {
			return nil, fmt.Errorf("prepare game %s for play: %w", l.id, err)
		}
	}
	return gs, nil
}

// run is the session's worker: queued turns in order, and the autopilot's
// turns when it is on and no human has control.
func (l *live) run() {
	defer l.exit()
	for {
		select {
		case <-l.quit:
			l.drain()
			return
		default:
		}
		select {
		case <-l.quit:
			l.drain()
			return
		case j := <-l.jobs:
			l.do(j)
		case <-l.wake:
		case <-l.tick():
			l.autopilotTurn(false)
		}
	}
}

// maxBackoff caps the autopilot's pause after failed turns.
const maxBackoff = 2 * time.Minute

// tick fires when the autopilot should play; nil when it should not. Each
// call starts the pause anew, so the autopilot waits a full pause after any
// turn or change of settings; after failed turns the pause doubles with
// each failure, up to maxBackoff.
func (l *live) tick() <-chan time.Time {
	l.mu.Lock()
	on := l.owner && l.auto && len(l.controls) == 0 && !l.deleted
	d := l.srv.speeds[l.speed]
	for i := 0; i < l.fails && d < maxBackoff; i++ {
		d *= 2
	}
	l.mu.Unlock()
	if !on {
		return nil
	}
	return time.After(min(d, max(maxBackoff, l.srv.speeds[l.speed])))
}

func (l *live) exit() {
	l.endEpisode()
	if l.isOwner() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := l.srv.cluster.Release(ctx, lease(l.id)); err != nil {
			l.srv.log.Warn("give up a game's lease", "session", l.id, "err", err)
		}
		cancel()
	}
	l.srv.mu.Lock()
	if l.srv.live[l.id] == l {
		delete(l.srv.live, l.id)
	}
	l.srv.mu.Unlock()
	close(l.done)
	l.srv.work.Done()
}

// drain answers turns that will not be played now: the server is closing.
func (l *live) drain() {
	for {
		select {
		case <-l.jobs:
			l.broadcastProblem(errClosing, false)
			l.srv.release(l)
		default:
			return
		}
	}
}

func (l *live) quitNow() {
	l.srv.mu.Lock()
	defer l.srv.mu.Unlock()
	if !l.quitting {
		l.quitting = true
		close(l.quit)
	}
}

func (l *live) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *live) isDeleted() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deleted
}

// enqueue queues a turn for the worker; the job holds a reference until it
// is played, so a client leaving does not cancel it.
func (l *live) enqueue(j job) error {
	l.srv.mu.Lock()
	if l.srv.closing || l.quitting {
		l.srv.mu.Unlock()
		return errClosing
	}
	l.refs++
	l.srv.mu.Unlock()
	select {
	case l.jobs <- j:
		l.srv.log.Debug("turn queued", "session", l.id, "by", j.by, "auto", j.auto)
		return nil
	default:
		l.srv.release(l)
		l.srv.log.Info("turn refused: the queue is full", "session", l.id, "by", j.by)
		return problem("gameapi.msg.busy", "Limit", maxJobs)
	}
}

func (l *live) do(j job) {
	defer l.srv.release(l)
	if j.auto {
		l.autopilotTurn(true)
		return
	}
	l.mu.Lock()
	nudges := l.nudges
	l.mu.Unlock()
	resp, err := l.turn(game.Play{Input: j.input, Agent: j.agent, Controller: j.by, Nudges: nudges})
	if err == nil && resp.Committed {
		l.usedNudges(len(nudges))
	}
}

// usedNudges drops the first n nudges: a committed turn took them.
func (l *live) usedNudges(n int) {
	if n == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nudges = l.nudges[min(n, len(l.nudges)):]
}

var errDeleted = fmt.Errorf("the game was deleted: %w", store.ErrNotFound)

// turn plays one turn, streaming its narration to every client, then sends
// each client the turn as its role may see it.
func (l *live) turn(p game.Play) (*game.Response, error) {
	input, by := p.Input, p.Controller
	ctx, cancel := context.WithTimeout(l.srv.base, l.srv.o.TurnTimeout)
	defer cancel()
	l.op.Lock()
	defer l.op.Unlock()
	if l.isDeleted() {
		return nil, errDeleted
	}
	if !l.stillOwner(ctx) {
		l.broadcastProblem(errElsewhere, true)
		return nil, errElsewhere
	}
	l.beginEpisode()
	n := l.session().Turn() + 1
	resp, err := l.session().PlayTurn(ctx, p, func(text string) {
		if text != "" {
			l.broadcast(TurnDelta{Type: TypeTurnDelta, Turn: n, Agent: agentDM, Text: text})
		}
	})
	if err != nil {
		l.srv.log.Warn("turn failed", "session", l.id, "by", by, "input", input, "err", err)
		l.broadcastProblem(problem("gameapi.turn_failed"), true)
		if l.srv.shared && errors.Is(err, store.ErrConflict) {
			// Another process committed this turn: it owns the game now.
			l.demote()
		}
		return nil, err
	}
	l.refresh(&resp.Awaiting)
	if resp.Committed {
		l.mu.Lock()
		l.sup.Observe(l.snap.world, cmp.Or(resp.Agent, agentDM), resp.Narrative)
		l.mu.Unlock()
	}
	l.broadcastTurn(resp, input, by)
	l.srv.log.Debug("turn played", "session", l.id, "turn", resp.Turn, "committed", resp.Committed, "by", by)
	if resp.Fallback != "" {
		// Nobody is left believing the model told this turn.
		l.srv.log.Warn("the game master's model failed; the turn was played offline", "session", l.id, "turn", resp.Turn, "fallback", resp.Fallback)
		l.broadcastProblem(problem("gameapi.fallback", "Turn", resp.Turn, "Fallback", resp.Fallback), true)
	}
	return resp, nil
}

// autopilotTurn plays the autopilot's next action: a nudge, else the first
// choice offered that it has not made lately, else a safe action in turn.
func (l *live) autopilotTurn(manual bool) {
	l.mu.Lock()
	nudges := l.nudges
	var input string
	if w := l.snap.world; len(nudges) > 0 && len(w.Party) == 0 && w.Player != "" {
		// A nudge that names someone here, an exit or an item is followed;
		// its words are never played.
		input, _ = offlinegm.NewAgent().Suggested(game.AgentView(w, w.Player), w.Members()[0], nudgeTexts(nudges))
	}
	if input == "" {
		for _, o := range l.await.Options {
			if !slices.Contains(l.recent, o) {
				input = o
				break
			}
		}
	}
	if input == "" {
		input = safeActions[l.rotate%len(safeActions)]
		l.rotate++
	}
	// Choices it made lately are passed over, so that a menu offered again
	// (a conversation's topics) is walked through, not asked forever.
	l.recent = append(l.recent, input)
	if len(l.recent) > maxRecent {
		l.recent = l.recent[1:]
	}
	play := game.Play{Input: input, Controller: byAutopilot}
	next, party := l.nextMemberLocked()
	play.Nudges = nudges
	l.mu.Unlock()
	if party {
		play = l.agentPlay(next, nudgeTexts(nudges))
		play.Nudges = nudges
	}
	resp, err := l.turn(play)
	if err == nil && resp.Committed {
		l.usedNudges(len(nudges))
	}
	l.mu.Lock()
	stop := ""
	if err != nil || resp.Fallback != "" {
		// A turn the model could not play counts as failed: the autopilot
		// backs off, then stops, rather than play on offline unseen.
		l.fails++
		if l.fails >= maxAutopilotFails {
			stop = StoppedError
		}
	} else {
		l.fails = 0
		if pc := l.snap.world.PC(); pc != nil && !pc.Alive() {
			stop = StoppedDefeated
		}
	}
	l.mu.Unlock()
	if stop != "" && !manual {
		l.stopAutopilot(stop)
	}
}

// nextMemberLocked is the party member whose turn it is, as the
// supervisor routes them, among those an agent plays and still standing.
// A game of one, or a party nobody's agent plays, has none. The caller
// holds l.mu.
func (l *live) nextMemberLocked() (world.PartyMember, bool) {
	w := l.snap.world
	if w == nil || len(w.Party) == 0 {
		return world.PartyMember{}, false
	}
	return l.sup.Next(w, func(m world.PartyMember) bool {
		c := w.Characters[m.Character]
		return m.Controller.Kind == world.ControllerAI && c != nil && c.Alive()
	})
}

// agentPlay asks m's agent, its own model or the offline one, what m
// does, from m's own view of the world; the turn records which decided.
// A model that fails is logged and the offline agent decides instead, so
// the transcript shows the fallback.
//
// A waiting nudge that names someone here, an exit or an item is followed
// first (by the offline agent, which reads it as a suggestion); its words
// are never played.
func (l *live) agentPlay(m world.PartyMember, nudges []string) game.Play {
	ctx, cancel := context.WithTimeout(l.srv.base, l.srv.o.TurnTimeout)
	defer cancel()
	l.mu.Lock()
	view := game.AgentView(l.snap.world, m.Character)
	l.mu.Unlock()
	if off := offlinegm.NewAgent(); len(nudges) > 0 {
		if words, ok := off.Suggested(view, m, nudges); ok {
			return game.Play{Input: words, Agent: m.Character, Controller: game.AgentName(off, m)}
		}
	}
	a, err := l.session().AgentOf(ctx, m)
	var words string
	if err == nil {
		words, err = a.Decide(ctx, view, m)
	}
	if err != nil || strings.TrimSpace(words) == "" {
		l.srv.log.Warn("party agent failed; the offline agent decides", "session", l.id, "character", m.Character, "controller", m.Controller.Label(), "err", err)
		a = offlinegm.NewAgent()
		if words, err = a.Decide(ctx, view, m); err != nil {
			words = safeActions[1]
		}
	}
	return game.Play{Input: words, Agent: m.Character, Controller: game.AgentName(a, m)}
}

// refresh takes a private copy of the state after an operation. The caller
// holds l.op (or is opening the session).
func (l *live) refresh(await *game.Awaiting) {
	gs := l.session()
	full := gs.World().View(access.GM, "")
	turn, branch := gs.Turn(), gs.Branch()
	l.mu.Lock()
	if branch != l.snap.branch || turn < l.snap.turn {
		// Restored or switched: who the DM addressed then is no call now.
		l.sup = game.Supervisor{}
	}
	l.snap = snapshot{world: full, turn: turn, branch: branch}
	l.views = map[viewer]*world.State{{level: access.GM}: full}
	if await != nil {
		l.await = *await
	}
	l.mu.Unlock()
}

// view is the snapshot as vw sees it.
func (l *live) view(vw viewer) *world.State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.viewLocked(vw)
}

func (l *live) viewLocked(vw viewer) *world.State {
	if vw.level >= access.GM {
		vw = viewer{level: access.GM}
	}
	if v := l.views[vw]; v != nil {
		return v
	}
	v := l.snap.world.View(vw.level, vw.character)
	l.views[vw] = v
	return v
}

// viewerOf is what user u is shown: the GM's view for the GM and
// assistants; else a player's, through the character u holds. A player
// who holds none sees a spectator's view of a party game, and the player
// character's of a game of one (whose one character is everyone's at the
// table, as before parties).
func (l *live) viewerOf(u auth.User) viewer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.viewerLocked(u)
}

func (l *live) viewerLocked(u auth.User) viewer {
	vw := viewer{level: viewLevel(u.Role)}
	if vw.level >= access.GM {
		return vw
	}
	if ch := l.heldLocked(u.ID); ch != "" {
		vw.character = ch
	} else if len(l.snap.world.Party) == 0 {
		vw.character = l.snap.world.Player
	}
	return vw
}

// heldLocked is the character user id holds, or "".
func (l *live) heldLocked(userID string) string {
	for ch, c := range l.controls {
		if c.userID == userID {
			return ch
		}
	}
	return ""
}

func (l *live) stateLocked(vw viewer) *SessionState {
	st := &SessionState{Session: l.id, Title: l.title, Campaign: l.camp, Turn: l.snap.turn, Branch: l.snap.branch,
		View: "player", Character: vw.character, Awaiting: l.await, World: l.viewLocked(vw),
		Autopilot: l.autopilotLocked(), Recap: l.recap, Party: l.partyLocked(vw)}
	if vw.level >= access.GM {
		st.View, st.Character = "gm", l.snap.world.Player
	}
	for _, ch := range world.SortedKeys(l.controls) {
		c := l.controls[ch]
		st.Controls = append(st.Controls, Control{Character: c.character, User: c.user})
		if st.Control == nil || c.character == vw.character {
			st.Control = &Control{Character: c.character, User: c.user}
		}
	}
	return st
}

// partyLocked summarises the party for vw: every member's name, class,
// HP band and conditions, who plays it, and whether it is vw's own.
func (l *live) partyLocked(vw viewer) []PartySummary {
	w := l.snap.world
	var out []PartySummary
	for _, m := range w.Members() {
		c := w.Characters[m.Character]
		if c == nil {
			continue
		}
		p := PartySummary{Character: c.ID, Name: c.Name, Class: cmp.Or(m.Class, c.Class), HP: world.HPBand(c), Conditions: c.Conditions,
			Controller: m.Controller.Label(), Acting: c.ID == w.Player, Own: c.ID == vw.character}
		if h := l.controls[c.ID]; h != nil {
			p.Controller = h.user
		}
		out = append(out, p)
	}
	return out
}

func (l *live) autopilotLocked() AutopilotState {
	return AutopilotState{Running: l.auto, Speed: l.speed, Paused: l.auto && len(l.controls) > 0, Nudges: len(l.nudges)}
}

func (l *live) autopilotState() AutopilotState {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.autopilotLocked()
}

// startAutopilot turns the autopilot on, at speed when one is given.
func (l *live) startAutopilot(ctx context.Context, speed string) error {
	if speed != "" {
		if _, ok := l.srv.speeds[speed]; !ok {
			return l.srv.unknownSpeed(speed)
		}
		if err := l.session().SetPreference(ctx, speedPreference, speed); err != nil {
			return err
		}
	}
	l.mu.Lock()
	if l.deleted {
		l.mu.Unlock()
		return errDeleted
	}
	l.srv.mu.Lock()
	if l.srv.closing || l.quitting {
		l.srv.mu.Unlock()
		l.mu.Unlock()
		return errClosing
	}
	if !l.auto {
		l.refs++ // the running autopilot keeps the session open
	}
	if speed != "" {
		l.speed = speed
	}
	l.srv.mu.Unlock()
	l.auto, l.fails = true, 0
	l.broadcastLocked(AutopilotStarted{Type: TypeAutopilotStarted, Speed: l.speed})
	l.mu.Unlock()
	l.keepAutopilot(true)
	l.poke()
	return nil
}

// stopAutopilot turns the autopilot off, reporting whether it was on. A turn
// it is playing finishes.
func (l *live) stopAutopilot(reason string) bool {
	l.mu.Lock()
	if !l.auto || !l.owner {
		l.mu.Unlock()
		return false
	}
	l.auto = false
	l.broadcastLocked(AutopilotStopped{Type: TypeAutopilotStopped, Reason: reason})
	l.mu.Unlock()
	if reason != StoppedShutdown {
		// A server shutting down leaves the autopilot to another.
		l.keepAutopilot(false)
	}
	l.poke()
	l.srv.release(l)
	return true
}

func (l *live) setSpeed(ctx context.Context, speed string) error {
	if _, ok := l.srv.speeds[speed]; !ok {
		return l.srv.unknownSpeed(speed)
	}
	if err := l.session().SetPreference(ctx, speedPreference, speed); err != nil {
		return err
	}
	l.mu.Lock()
	l.speed = speed
	l.broadcastStateLocked()
	l.mu.Unlock()
	l.poke()
	return nil
}

// dropIn gives c's user control of character: the acting character of a
// game of one (character "" or its id), a party member of a party game.
// A user holds one character at a time, and a character has one holder;
// only the GM may take a held character over, and its holder is told
// (control_released). In a party game the change is a turn of the DM's
// (controller_changed to the human), so the record says who played what.
func (l *live) dropIn(ctx context.Context, c *client, character string) error {
	l.op.Lock()
	defer l.op.Unlock()
	l.mu.Lock()
	w := l.snap.world
	party := len(w.Party) > 0
	if character == "" && !party {
		character = w.Player
	}
	if !w.InParty(character) {
		names := strings.Join(partyIDs(w), ", ")
		l.mu.Unlock()
		return problem("gameapi.msg.unknown_character", "Character", clip(character), "PC", names)
	}
	if held := l.heldLocked(c.user.ID); held != "" {
		l.mu.Unlock()
		if held == character {
			return nil
		}
		return problem("gameapi.msg.holds_another", "Character", held)
	}
	var prev world.Controller
	if m := w.Member(character); m != nil {
		prev = m.Controller
	}
	old := l.controls[character]
	if old != nil {
		if c.user.Role < access.GM {
			l.mu.Unlock()
			return problem("gameapi.msg.held", "Character", character, "User", old.user)
		}
		prev = old.prev
	}
	l.mu.Unlock()
	if party {
		to := world.Controller{Kind: world.ControllerHuman, User: c.name()}
		if err := l.changeControllerLocked(ctx, character, to, c.name()); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if old != nil {
		l.sendTo(old.userID, ControlReleased{Type: TypeControlReleased, Character: character})
	}
	l.controls[character] = &control{character: character, user: c.name(), userID: c.user.ID, by: c, prev: prev}
	l.broadcastStateLocked()
	l.broadcastLocked(AwaitingInput{Type: TypeAwaitingInput, Character: character, User: c.name()})
	l.poke()
	return nil
}

// changeControllerLocked records a controller change as a DM turn and
// sends it; a member already played by to needs none. The caller holds
// l.op.
func (l *live) changeControllerLocked(ctx context.Context, character string, to world.Controller, by string) error {
	if m := l.session().World().Member(character); m == nil || m.Controller == to {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.srv.o.TurnTimeout)
	defer cancel()
	l.beginEpisode()
	resp, err := l.session().ChangeController(ctx, character, to, by)
	if err != nil {
		return err
	}
	l.refresh(&resp.Awaiting)
	l.broadcastTurn(resp, "", by)
	return nil
}

func partyIDs(w *world.State) []string {
	var ids []string
	for _, m := range w.Members() {
		ids = append(ids, m.Character)
	}
	return ids
}

// releaseControl lets go of the character c's user holds, or with
// character (a GM's or an assistant's) of that one; forced, it is c's
// connection leaving. The character goes back to who played it before
// (its agent: controller_changed back to ai in a party game).
func (l *live) releaseControl(c *client, character string, force bool) error {
	l.op.Lock()
	defer l.op.Unlock()
	l.mu.Lock()
	var ctl *control
	switch {
	case force:
		for _, h := range l.controls {
			if h.by.id == c.id {
				ctl = h
			}
		}
		if ctl == nil {
			l.mu.Unlock()
			return nil
		}
	case character != "":
		ctl = l.controls[character]
		if ctl != nil && ctl.userID != c.user.ID && c.user.Role < access.Assistant {
			l.mu.Unlock()
			return problem("gameapi.msg.not_in_control", "User", ctl.user)
		}
	default:
		if ch := l.heldLocked(c.user.ID); ch != "" {
			ctl = l.controls[ch]
		} else if len(l.controls) == 1 && c.user.Role >= access.Assistant {
			for _, h := range l.controls {
				ctl = h
			}
		} else if len(l.controls) > 0 {
			var users []string
			for _, ch := range world.SortedKeys(l.controls) {
				users = append(users, l.controls[ch].user)
			}
			l.mu.Unlock()
			return problem("gameapi.msg.not_in_control", "User", strings.Join(users, ", "))
		}
	}
	if ctl == nil {
		l.mu.Unlock()
		return problem("gameapi.msg.no_control")
	}
	delete(l.controls, ctl.character)
	l.mu.Unlock()
	if l.session().World().Member(ctl.character) != nil && !l.isDeleted() {
		back := ctl.prev
		if back.Kind != world.ControllerAI {
			back = world.Controller{Kind: world.ControllerAI}
		}
		if err := l.changeControllerLocked(context.Background(), ctl.character, back, ctl.user); err != nil {
			l.srv.log.Warn("hand a character back to its agent", "session", l.id, "character", ctl.character, "err", err)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.broadcastLocked(ControlReleased{Type: TypeControlReleased, Character: ctl.character})
	if l.auto && len(l.controls) == 0 {
		l.broadcastLocked(AutopilotStarted{Type: TypeAutopilotStarted, Speed: l.speed})
	}
	l.poke()
	return nil
}

// nudge keeps a suggestion for the next turn's narration; everyone is
// sent session_state with the count waiting.
func (l *live) nudge(c *client, content string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.nudges) >= maxNudges {
		return problem("gameapi.msg.nudges_full", "Limit", maxNudges)
	}
	l.nudges = append(l.nudges, game.Nudge{By: c.name(), Text: content})
	l.broadcastStateLocked() // autopilot.nudges: the table sees one waiting
	return nil
}

func nudgeTexts(ns []game.Nudge) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Text
	}
	return out
}

// humanPlay is the turn c's words make: acted by the character c's user
// holds. A GM who holds none acts as the character acting now, and so may
// anyone in a game of one whose character nobody holds; any other player
// must drop in first.
func (l *live) humanPlay(u auth.User, input string) (job, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	j := job{input: input, by: cmp.Or(u.Name, u.ID)}
	if ch := l.heldLocked(u.ID); ch != "" {
		j.agent = ch
		return j, nil
	}
	w := l.snap.world
	switch {
	case u.Role >= access.GM:
		return j, nil
	case len(w.Party) == 0 && l.controls[w.Player] == nil:
		return j, nil
	case len(w.Party) == 0:
		return job{}, problem("gameapi.msg.held", "Character", w.Player, "User", l.controls[w.Player].user)
	}
	return job{}, problem("gameapi.msg.hold_none")
}

// whisper sends c's whisper: from the GM (or an assistant) to a party
// member, or from the character c's user holds to the DM.
func (l *live) whisper(ctx context.Context, c *client, to, content string) error {
	from := game.WhisperGM
	if c.user.Role < access.Assistant || to == game.WhisperDM {
		l.mu.Lock()
		from = l.heldLocked(c.user.ID)
		if from == "" && len(l.snap.world.Party) == 0 && c.user.Role < access.Assistant {
			from = l.snap.world.Player // a game of one: the table's one character
		}
		l.mu.Unlock()
		if from == "" {
			return problem("gameapi.msg.hold_none")
		}
		if to != game.WhisperDM {
			return problem("gameapi.msg.whisper_to_dm")
		}
	}
	l.op.Lock()
	defer l.op.Unlock()
	if l.isDeleted() {
		return errDeleted
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.srv.o.TurnTimeout)
	defer cancel()
	l.beginEpisode()
	resp, _, err := l.session().Whisper(ctx, from, to, content, c.name())
	if err != nil {
		return err
	}
	l.refresh(&resp.Awaiting)
	l.broadcastTurn(resp, "", c.name())
	return nil
}

// reveal makes whisper id known to all (the GM's, or an assistant's).
func (l *live) reveal(ctx context.Context, c *client, id string) error {
	l.op.Lock()
	defer l.op.Unlock()
	if l.isDeleted() {
		return errDeleted
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.srv.o.TurnTimeout)
	defer cancel()
	resp, _, err := l.session().RevealWhisper(ctx, id, c.name())
	if err != nil {
		return err
	}
	l.refresh(&resp.Awaiting)
	l.broadcastTurn(resp, "", c.name())
	return nil
}

// sendTo queues v for every connection of user id.
func (l *live) sendTo(userID string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		l.srv.log.Error("encode message", "session", l.id, "err", err)
		return
	}
	for c := range l.clients {
		if c.user.ID == userID {
			l.sendLocked(c, b)
		}
	}
	l.publishLocked(event{Kind: evUser, User: userID, Msg: b}, false, false)
}

// join adds a client and sends it the full state, in one step so that it
// misses no turn and sees none twice.
func (l *live) join(c *client) bool {
	if l.isOwner() {
		l.beginEpisode()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.deleted {
		return false
	}
	l.clients[c] = struct{}{}
	b, err := json.Marshal(StateMessage{Type: TypeSessionState, State: l.stateLocked(l.viewerLocked(c.user))})
	if err != nil {
		l.srv.log.Error("encode session state", "session", l.id, "err", err)
		return false
	}
	l.sendLocked(c, b)
	return true
}

// leave removes a client; a human who dropped in lets go by leaving.
func (l *live) leave(c *client) {
	l.mu.Lock()
	delete(l.clients, c)
	owner := l.owner
	l.mu.Unlock()
	if !owner {
		l.forwardLeave(c)
		return
	}
	l.releaseControl(c, "", true) //nolint:errcheck // forced release cannot fail
}

// sendLocked queues b for c, dropping c when its queue is full: a slow
// client never holds up the others.
func (l *live) sendLocked(c *client, b []byte) {
	select {
	case c.send <- b:
	default:
		delete(l.clients, c)
		l.srv.log.Info("dropping a slow client", "session", l.id, "user", c.user.ID)
		c.kick(websocketPolicyViolation, "too slow: messages were not read", false)
	}
}

func (l *live) broadcast(v any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.broadcastLocked(v)
}

func (l *live) broadcastLocked(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		l.srv.log.Error("encode message", "session", l.id, "err", err)
		return
	}
	l.sendAllLocked(b)
	_, delta := v.(TurnDelta)
	l.publishLocked(event{Kind: evMsg, Msg: b}, false, delta)
}

// sendAllLocked queues b for every client of this process.
func (l *live) sendAllLocked(b []byte) {
	for c := range l.clients {
		l.sendLocked(c, b)
	}
}

// broadcastViews sends each client the message msg makes for what it is
// shown (its level and held character), encoding it once per viewer.
func (l *live) broadcastViews(msg func(vw viewer) any) {
	enc := map[viewer][]byte{}
	for c := range l.clients {
		vw := l.viewerLocked(c.user)
		b, ok := enc[vw]
		if !ok {
			var err error
			if b, err = json.Marshal(msg(vw)); err != nil {
				l.srv.log.Error("encode message", "session", l.id, "err", err)
				return
			}
			enc[vw] = b
		}
		l.sendLocked(c, b)
	}
}

func (l *live) broadcastState() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.broadcastStateLocked()
}

func (l *live) broadcastStateLocked() {
	l.publishLocked(event{Kind: evState}, true, false)
	l.broadcastViews(func(vw viewer) any {
		return StateMessage{Type: TypeSessionState, State: l.stateLocked(vw)}
	})
}

func (l *live) broadcastTurn(r *game.Response, input, by string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The followers cut the turn, its whispers and its holds for their
	// own clients from this one event.
	l.publishLocked(event{Kind: evTurn, Resp: r, Input: input, By: by}, true, false)
	l.quiet = true
	defer func() { l.quiet = false }()
	l.broadcastViews(func(vw viewer) any {
		level := vw.level
		st := l.stateLocked(vw)
		u := TurnUpdate{Type: TypeTurnUpdate, Turn: r.Turn, Agent: cmp.Or(r.Agent, agentDM), Controller: cmp.Or(r.Controller, by), Content: r.Narrative, State: st,
			Input: input, By: by, Committed: r.Committed, Rolls: r.Rolls, Awaiting: r.Awaiting,
			Rejected: r.Rejected, Notice: r.Notice}
		u.Effects = st.World.VisibleEffects(r.Effects, level, vw.character)
		if level >= access.GM {
			u.Outcomes = r.Outcomes
		}
		return u
	})
	l.secretsLocked(r.Effects)
	for _, ch := range world.SortedKeys(l.controls) {
		c := l.controls[ch]
		l.broadcastLocked(AwaitingInput{Type: TypeAwaitingInput, Character: c.character, User: c.user})
	}
}

// secretsLocked delivers a turn's whispers to their readers alone (the
// connections whose user holds the sender or the recipient, and the GM's
// and assistants'; in a game of one, every player's, whose character it
// is) and its revealed secrets to everyone.
func (l *live) secretsLocked(es world.Effects) {
	for _, e := range es {
		switch e := e.(type) {
		case world.WhisperSent:
			wh := e.Whisper
			b, err := json.Marshal(WhisperMessage{Type: TypeWhisper, ID: wh.ID, From: wh.From, To: wh.To, Content: wh.Text, Turn: wh.Turn})
			if err != nil {
				continue
			}
			for c := range l.clients {
				vw := l.viewerLocked(c.user)
				if vw.level >= access.GM || (vw.character != "" && (vw.character == wh.To || vw.character == wh.From)) {
					l.sendLocked(c, b)
				}
			}
		case world.SecretRevealed:
			if e.Whisper == "" {
				continue
			}
			wh := l.snap.world.Whispers[e.Whisper]
			if wh == nil {
				continue
			}
			l.broadcastLocked(SecretRevealedMessage{Type: TypeSecretRevealed, ID: wh.ID, From: wh.From, To: wh.To,
				Content: wh.Text, Turn: wh.Turn, RevealedTurn: wh.RevealedTurn})
		}
	}
}

// broadcastProblem tells every client, each in its language.
func (l *live) broadcastProblem(p *Problem, recoverable bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.publishLocked(event{Kind: evProblem, Problem: p, Recoverable: recoverable}, false, false)
	for c := range l.clients {
		if b, err := json.Marshal(c.errorMessage(p, recoverable)); err == nil {
			l.sendLocked(c, b)
		}
	}
}

// kickAll disconnects every client once what is queued for it is sent.
func (l *live) kickAll(code int, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.clients {
		delete(l.clients, c)
		c.kick(code, reason, true)
	}
}

// delete removes the session from the store after any turn in flight, stops
// its autopilot and disconnects its clients.
func (l *live) delete(ctx context.Context) error {
	l.op.Lock()
	defer l.op.Unlock()
	if err := l.srv.o.Store.DeleteSession(ctx, l.id); err != nil {
		return fmt.Errorf("delete game %s: %w", l.id, err)
	}
	l.mu.Lock()
	l.deleted = true
	l.mu.Unlock()
	l.stopAutopilot(StoppedDeleted)
	l.broadcastProblem(problem("gameapi.session_deleted"), false)
	l.mu.Lock()
	l.publishLocked(event{Kind: evDeleted}, false, false)
	l.mu.Unlock()
	l.kickAll(websocketNormalClosure, "game deleted")
	l.quitNow()
	return nil
}

// beginEpisode opens a game night the first time the session is joined or
// played since it was loaded; its recap of the last one goes to clients.
func (l *live) beginEpisode() {
	l.epMu.Lock()
	defer l.epMu.Unlock()
	if l.episode || l.isDeleted() || !l.isOwner() {
		return
	}
	ctx, cancel := context.WithTimeout(l.srv.base, 30*time.Second)
	defer cancel()
	ep, err := l.session().BeginEpisode(ctx)
	if err != nil {
		l.srv.log.Warn("begin game night", "session", l.id, "err", err)
		return
	}
	l.episode = true
	l.mu.Lock()
	l.recap = ep.Recap
	l.mu.Unlock()
}

// endEpisode closes the game night, summarising it for the next recap.
func (l *live) endEpisode() {
	l.epMu.Lock()
	defer l.epMu.Unlock()
	if !l.episode || l.isDeleted() || !l.isOwner() {
		return
	}
	// The server may be shutting down: the summary is written regardless.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := l.session().EndEpisode(ctx); err != nil {
		l.srv.log.Warn("end game night", "session", l.id, "err", err)
	}
	l.episode = false
}
