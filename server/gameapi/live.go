package gameapi

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/access"
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
	gs    *game.Session
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

	mu      sync.Mutex // guards what follows
	clients map[*client]struct{}
	snap    snapshot
	views   map[access.Level]*world.State // of snap, by level
	auto    bool
	speed   string
	control *control
	nudges  []string
	rotate  int
	sup     game.Supervisor // who of the party acts next
	recent  []string        // the autopilot's last inputs
	await   game.Awaiting
	fails   int
	deleted bool
	recap   string // "previously", from the last game night
}

// snapshot is the state after the last operation: a private copy, never
// changed, that every view is cut from.
type snapshot struct {
	world  *world.State
	turn   int
	branch string
}

type control struct {
	character, user string
	by              *client
}

// job is a turn waiting for the worker.
type job struct {
	input string // what a human typed; "" with auto
	auto  bool   // an autopilot turn now (next_turn)
	by    string
}

func newLive(s *Server, id string) *live {
	return &live{srv: s, id: id, refs: 1, ready: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{}),
		jobs: make(chan job, maxJobs), wake: make(chan struct{}, 1), clients: map[*client]struct{}{}}
}

func (l *live) open(ctx context.Context) error {
	gs, err := game.Open(ctx, l.srv.o.Store, l.id, game.Options{Logger: l.srv.log})
	if err != nil {
		return err
	}
	if l.srv.o.Prepare != nil {
		if err := l.srv.o.Prepare(ctx, gs); err != nil {
			return fmt.Errorf("prepare game %s for play: %w", l.id, err)
		}
	}
	l.gs, l.title, l.camp = gs, gs.Title(), gs.Campaign().Slug()
	l.speed = l.srv.knownSpeed(gs.Preference(speedPreference))
	l.await = game.Awaiting{Kind: game.FreeForm}
	l.refresh(nil)
	return nil
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

// tick fires when the autopilot should play; nil when it should not. Each
// call starts the pause anew, so the autopilot waits a full pause after any
// turn or change of settings.
func (l *live) tick() <-chan time.Time {
	l.mu.Lock()
	on := l.auto && l.control == nil && !l.deleted
	d := l.srv.speeds[l.speed]
	l.mu.Unlock()
	if !on {
		return nil
	}
	return time.After(d)
}

func (l *live) exit() {
	l.endEpisode()
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
		return nil
	default:
		l.srv.release(l)
		return problem("gameapi.msg.busy", "Limit", maxJobs)
	}
}

func (l *live) do(j job) {
	defer l.srv.release(l)
	if j.auto {
		l.autopilotTurn(true)
		return
	}
	l.turn(game.Play{Input: j.input, Controller: j.by}) //nolint:errcheck // reported to the clients
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
	l.beginEpisode()
	n := l.gs.Turn() + 1
	resp, err := l.gs.PlayTurn(ctx, p, func(text string) {
		if text != "" {
			l.broadcast(TurnDelta{Type: TypeTurnDelta, Turn: n, Agent: agentDM, Text: text})
		}
	})
	if err != nil {
		l.srv.log.Warn("turn failed", "session", l.id, "by", by, "input", input, "err", err)
		l.broadcastProblem(problem("gameapi.turn_failed"), true)
		return nil, err
	}
	l.refresh(&resp.Awaiting)
	if resp.Committed {
		l.mu.Lock()
		l.sup.Observe(l.snap.world, cmp.Or(resp.Agent, agentDM), resp.Narrative)
		l.mu.Unlock()
	}
	l.broadcastTurn(resp, input, by)
	return resp, nil
}

// autopilotTurn plays the autopilot's next action: a nudge, else the first
// choice offered that it has not made lately, else a safe action in turn.
func (l *live) autopilotTurn(manual bool) {
	l.mu.Lock()
	var input string
	nudged := false
	switch {
	case len(l.nudges) > 0:
		input, l.nudges, nudged = l.nudges[0], l.nudges[1:], true
	default:
		for _, o := range l.await.Options {
			if !slices.Contains(l.recent, o) {
				input = o
				break
			}
		}
		if input == "" {
			input = safeActions[l.rotate%len(safeActions)]
			l.rotate++
		}
	}
	// Choices it made lately are passed over, so that a menu offered again
	// (a conversation's topics) is walked through, not asked forever.
	l.recent = append(l.recent, input)
	if len(l.recent) > maxRecent {
		l.recent = l.recent[1:]
	}
	play := game.Play{Input: input, Controller: byAutopilot}
	var next world.PartyMember
	party := false
	if !nudged {
		next, party = l.nextMemberLocked()
	}
	l.mu.Unlock()
	if party {
		play = l.agentPlay(next)
	}
	_, err := l.turn(play)
	l.mu.Lock()
	stop := ""
	if err != nil {
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
func (l *live) agentPlay(m world.PartyMember) game.Play {
	ctx, cancel := context.WithTimeout(l.srv.base, l.srv.o.TurnTimeout)
	defer cancel()
	l.mu.Lock()
	view := game.AgentView(l.snap.world, m.Character)
	l.mu.Unlock()
	a, err := l.gs.AgentOf(ctx, m)
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
	full := l.gs.World().View(access.GM, "")
	turn, branch := l.gs.Turn(), l.gs.Branch()
	l.mu.Lock()
	if branch != l.snap.branch || turn < l.snap.turn {
		// Restored or switched: who the DM addressed then is no call now.
		l.sup = game.Supervisor{}
	}
	l.snap = snapshot{world: full, turn: turn, branch: branch}
	l.views = map[access.Level]*world.State{access.GM: full}
	if await != nil {
		l.await = *await
	}
	l.mu.Unlock()
}

// view is the snapshot as a viewer with level sees it.
func (l *live) view(level access.Level) *world.State {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.viewLocked(level)
}

func (l *live) viewLocked(level access.Level) *world.State {
	if v := l.views[level]; v != nil {
		return v
	}
	v := l.snap.world.View(level, l.snap.world.Player)
	l.views[level] = v
	return v
}

func (l *live) player() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.snap.world.Player
}

func (l *live) stateLocked(level access.Level) *SessionState {
	st := &SessionState{Session: l.id, Title: l.title, Campaign: l.camp, Turn: l.snap.turn, Branch: l.snap.branch,
		View: "player", Character: l.snap.world.Player, Awaiting: l.await, World: l.viewLocked(level),
		Autopilot: l.autopilotLocked(), Recap: l.recap}
	if level >= access.GM {
		st.View = "gm"
	}
	if c := l.control; c != nil {
		st.Control = &Control{Character: c.character, User: c.user}
	}
	return st
}

func (l *live) autopilotLocked() AutopilotState {
	return AutopilotState{Running: l.auto, Speed: l.speed, Paused: l.auto && l.control != nil, Nudges: len(l.nudges)}
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
		if err := l.gs.SetPreference(ctx, speedPreference, speed); err != nil {
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
	l.poke()
	return nil
}

// stopAutopilot turns the autopilot off, reporting whether it was on. A turn
// it is playing finishes.
func (l *live) stopAutopilot(reason string) bool {
	l.mu.Lock()
	if !l.auto {
		l.mu.Unlock()
		return false
	}
	l.auto = false
	l.broadcastLocked(AutopilotStopped{Type: TypeAutopilotStopped, Reason: reason})
	l.mu.Unlock()
	l.poke()
	l.srv.release(l)
	return true
}

func (l *live) setSpeed(ctx context.Context, speed string) error {
	if _, ok := l.srv.speeds[speed]; !ok {
		return l.srv.unknownSpeed(speed)
	}
	if err := l.gs.SetPreference(ctx, speedPreference, speed); err != nil {
		return err
	}
	l.mu.Lock()
	l.speed = speed
	l.broadcastStateLocked()
	l.mu.Unlock()
	l.poke()
	return nil
}

func (l *live) dropIn(c *client, character string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	pc := l.snap.world.Player
	if character == "" {
		character = pc
	}
	if character != pc {
		return problem("gameapi.msg.unknown_character", "Character", clip(character), "PC", pc)
	}
	l.control = &control{character: character, user: c.name(), by: c}
	l.broadcastLocked(AwaitingInput{Type: TypeAwaitingInput, Character: character, User: c.name()})
	l.poke()
	return nil
}

func (l *live) releaseControl(c *client, force bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctl := l.control
	if ctl == nil {
		if force {
			return nil
		}
		return problem("gameapi.msg.no_control")
	}
	if !force && ctl.by != c && c.user.Role < access.Assistant {
		return problem("gameapi.msg.not_in_control", "User", ctl.user)
	}
	if force && ctl.by != c {
		return nil
	}
	l.control = nil
	l.broadcastLocked(ControlReleased{Type: TypeControlReleased, Character: ctl.character})
	if l.auto {
		l.broadcastLocked(AutopilotStarted{Type: TypeAutopilotStarted, Speed: l.speed})
	}
	l.poke()
	return nil
}

func (l *live) nudge(content string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.nudges) >= maxNudges {
		return problem("gameapi.msg.nudges_full", "Limit", maxNudges)
	}
	l.nudges = append(l.nudges, content)
	return nil
}

// join adds a client and sends it the full state, in one step so that it
// misses no turn and sees none twice.
func (l *live) join(c *client) bool {
	l.beginEpisode()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.deleted {
		return false
	}
	l.clients[c] = struct{}{}
	b, err := json.Marshal(StateMessage{Type: TypeSessionState, State: l.stateLocked(c.level)})
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
	l.mu.Unlock()
	l.releaseControl(c, true) //nolint:errcheck // forced release cannot fail
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
	for c := range l.clients {
		l.sendLocked(c, b)
	}
}

// broadcastViews sends each client the message msg makes for its level,
// encoding it once per level.
func (l *live) broadcastViews(msg func(level access.Level) any) {
	enc := map[access.Level][]byte{}
	for c := range l.clients {
		b, ok := enc[c.level]
		if !ok {
			var err error
			if b, err = json.Marshal(msg(c.level)); err != nil {
				l.srv.log.Error("encode message", "session", l.id, "err", err)
				return
			}
			enc[c.level] = b
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
	l.broadcastViews(func(level access.Level) any {
		return StateMessage{Type: TypeSessionState, State: l.stateLocked(level)}
	})
}

func (l *live) broadcastTurn(r *game.Response, input, by string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	pc := l.snap.world.Player
	l.broadcastViews(func(level access.Level) any {
		st := l.stateLocked(level)
		u := TurnUpdate{Type: TypeTurnUpdate, Turn: r.Turn, Agent: cmp.Or(r.Agent, agentDM), Controller: cmp.Or(r.Controller, by), Content: r.Narrative, State: st,
			Input: input, By: by, Committed: r.Committed, Rolls: r.Rolls, Awaiting: r.Awaiting,
			Rejected: r.Rejected, Notice: r.Notice}
		u.Effects = st.World.VisibleEffects(r.Effects, level, pc)
		if level >= access.GM {
			u.Outcomes = r.Outcomes
		}
		return u
	})
	if c := l.control; c != nil {
		l.broadcastLocked(AwaitingInput{Type: TypeAwaitingInput, Character: c.character, User: c.user})
	}
}

// broadcastProblem tells every client, each in its language.
func (l *live) broadcastProblem(p *Problem, recoverable bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
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
	l.kickAll(websocketNormalClosure, "game deleted")
	l.quitNow()
	return nil
}

// beginEpisode opens a game night the first time the session is joined or
// played since it was loaded; its recap of the last one goes to clients.
func (l *live) beginEpisode() {
	l.epMu.Lock()
	defer l.epMu.Unlock()
	if l.episode || l.isDeleted() {
		return
	}
	ctx, cancel := context.WithTimeout(l.srv.base, 30*time.Second)
	defer cancel()
	ep, err := l.gs.BeginEpisode(ctx)
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
	if !l.episode || l.isDeleted() {
		return
	}
	// The server may be shutting down: the summary is written regardless.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := l.gs.EndEpisode(ctx); err != nil {
		l.srv.log.Warn("end game night", "session", l.id, "err", err)
	}
	l.episode = false
}
