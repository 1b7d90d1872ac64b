package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/agent"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/chunk"
	"github.com/hearth-rpg/hearth/ingest/library"
	"github.com/hearth-rpg/hearth/llm"
	"github.com/hearth-rpg/hearth/llm/structured"
	"github.com/hearth-rpg/hearth/retrieve"
)

// Tool names, as seed 000 §2.4.1 gives them.
const (
	DocumentSearch       = "document_search"
	DocumentGet          = "document_get"
	ImageSearch          = "image_search"
	SystemSchema         = "system_schema"
	TravellerUWPParse    = "traveller_uwp_parse"
	TravellerJumpCalc    = "traveller_jump_calc"
	TravellerSkillLookup = "traveller_skill_lookup"
	FvttRead             = "fvtt_read"
	FvttWrite            = "fvtt_write"
	FvttQuery            = "fvtt_query"
	DiceRoll             = "dice_roll"
)

// Searcher finds passages; a retrieve.Index is one.
type Searcher interface {
	Search(ctx context.Context, q retrieve.Query) (retrieve.Result, error)
}

// Documents reads library documents; a *library.Library is one.
type Documents interface {
	Document(ctx context.Context, id string, role access.Level) (library.Document, error)
	Get(ctx context.Context, docID string, page int, role access.Level) (library.Page, error)
}

// Images finds library images; a *library.Library is one.
type Images interface {
	SearchImages(ctx context.Context, q library.ImageQuery) ([]library.Image, error)
}

// Toolbox holds what the internal tools read.
type Toolbox struct {
	Search    Searcher
	Documents Documents // optional: without it document_get is not offered
	Images    Images    // optional: without it image_search is not offered
	Traveller *Traveller
	// Bundled maps the packs built into Hearth that share the index (id →
	// the system in its manifest, e.g. srd51 → d20). A search reads one
	// only when the chat's Selection picks it.
	Bundled map[string]string
}

// Caller is who the tools act for: the role every read is filtered by and
// what the client told about its game system.
type Caller struct {
	Role access.Level
	// Schema is the client's game system description
	// (getSystemCapabilities() in seed 000 §3.5.2), returned by
	// system_schema.
	Schema json.RawMessage
	// Library is what document_search reads.
	Library Selection
}

// For narrows the caller to the user a request was authenticated as, when
// that user's role is lower: a tool set built for the GM (the MCP server's)
// still reads as a player when a player's key calls it.
func (c Caller) For(ctx context.Context) Caller {
	if u, ok := auth.UserFrom(ctx); ok && u.Role < c.Role {
		c.Role = u.Role
	}
	return c
}

// callerKey marks a run's context with the Caller its tools act for.
type callerKey struct{}

// withCaller puts c on ctx for the tools of a run started with it.
func withCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerOf is the Caller a tool call acts for: the run's (withCaller),
// else c, the one the tool set was built for.
func callerOf(ctx context.Context, c Caller) Caller {
	if rc, ok := ctx.Value(callerKey{}).(*Caller); ok {
		return *rc
	}
	return c
}

// Limits of what one tool call puts into the model's context.
const (
	maxSearchLimit  = 20
	searchBudget    = 3000 // tokens of passages per search
	maxPassageChars = 1500
	maxPageChars    = 12000
)

type searchArgs struct {
	Query     string   `json:"query" jsonschema:"what to look for, in the words a rulebook would use"`
	Tags      []string `json:"tags,omitempty" jsonschema:"only documents with these tags"`
	TagsMatch string   `json:"tags_match,omitempty" jsonschema:"any (default) or all of the tags"`
	Limit     int      `json:"limit,omitempty" jsonschema:"how many passages, 1 to 20 (default 5)"`
}

type getArgs struct {
	DocumentID string `json:"document_id" jsonschema:"the document_id a search result gave"`
	Page       int    `json:"page,omitempty" jsonschema:"page number; omit for the document's record"`
}

type imageArgs struct {
	Query      string `json:"query,omitempty" jsonschema:"words of the caption or the text near the image"`
	DocumentID string `json:"document_id,omitempty" jsonschema:"only this document's images"`
	Page       int    `json:"page,omitempty" jsonschema:"only images on this page (with document_id)"`
	Limit      int    `json:"limit,omitempty" jsonschema:"how many images, 1 to 20 (default 10)"`
}

type schemaArgs struct {
	DocumentType string `json:"document_type,omitempty" jsonschema:"actor or item to see only that part"`
}

// Foundry document types the external tools accept (seed 000 §4.6).
var fvttTypes = []any{"actor", "item", "journal_entry", "scene", "rollable_table"}

type fvttReadArgs struct {
	DocumentType string `json:"document_type" jsonschema:"actor, item, journal_entry, scene or rollable_table"`
	DocumentID   string `json:"document_id" jsonschema:"the Foundry document id or name"`
}

type fvttWriteArgs struct {
	DocumentType string          `json:"document_type" jsonschema:"actor, item, journal_entry, scene or rollable_table"`
	Operation    string          `json:"operation" jsonschema:"create, update or delete"`
	Data         json.RawMessage `json:"data" jsonschema:"the document data; for update and delete include its _id"`
}

type fvttQueryArgs struct {
	DocumentType string          `json:"document_type" jsonschema:"actor, item, journal_entry, scene or rollable_table"`
	Filter       json.RawMessage `json:"filter,omitempty" jsonschema:"field values to match, e.g. {\"type\":\"npc\"}"`
	Limit        int             `json:"limit,omitempty" jsonschema:"at most this many documents"`
}

type diceArgs struct {
	Formula string `json:"formula" jsonschema:"dice notation, e.g. 2d6+1"`
	Label   string `json:"label,omitempty" jsonschema:"what the roll is for"`
}

// schema returns the JSON Schema of T, with enums added where the Go type
// cannot say them.
func schema[T any](enums map[string][]any) json.RawMessage {
	raw, err := structured.ForType(reflect.TypeFor[T]())
	if err != nil {
		panic(fmt.Sprintf("tool schema for %T: %v", *new(T), err)) // a programming error, caught by tests
	}
	if len(enums) == 0 {
		return raw
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(err)
	}
	props, _ := m["properties"].(map[string]any)
	for name, values := range enums {
		if p, ok := props[name].(map[string]any); ok {
			p["enum"] = values
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return out
}

// The schemas are made once: building them from the Go types costs more
// than a whole chat's setup otherwise.
var (
	searchSchema    = sync.OnceValue(func() json.RawMessage { return schema[searchArgs](map[string][]any{"tags_match": {"any", "all"}}) })
	getSchema       = sync.OnceValue(func() json.RawMessage { return schema[getArgs](nil) })
	imageSchema     = sync.OnceValue(func() json.RawMessage { return schema[imageArgs](nil) })
	systemSchemaDef = sync.OnceValue(func() json.RawMessage {
		return schema[schemaArgs](map[string][]any{"document_type": {"actor", "item"}})
	})
	externalTools = sync.OnceValue(func() []agent.Tool {
		ext := func(name, desc string, params json.RawMessage) agent.Tool {
			return agent.Tool{Tool: llm.Tool{Name: name, Description: desc, Parameters: params}, External: true}
		}
		types := map[string][]any{"document_type": fvttTypes}
		return []agent.Tool{
			ext(FvttRead, "Read a Foundry VTT document (actor, item, journal entry, scene, rollable table) with the user's permissions.", schema[fvttReadArgs](types)),
			ext(FvttWrite, "Create, update or delete a Foundry VTT document with the user's permissions. "+
				"To use a library image (an actor's img, a scene's background.src), give the value \"hearth-image:<id>\" with an id from image_search: the client imports it into Foundry and writes its path.",
				schema[fvttWriteArgs](map[string][]any{"document_type": fvttTypes, "operation": {"create", "update", "delete"}})),
			ext(FvttQuery, "List Foundry VTT documents of a type matching a filter, with the user's permissions.", schema[fvttQueryArgs](types)),
			ext(DiceRoll, "Roll dice in Foundry VTT so the roll shows in its chat log.", schema[diceArgs](nil)),
		}
	})
)

// Tools returns the Seneschal tool set for caller: the internal tools bound
// to the caller's role, then the external ones the client runs. A tool
// called with a run's context that names another caller (a chat's, see
// withCaller) acts for that one.
func (tb *Toolbox) Tools(c Caller) []agent.Tool {
	// Room for all at once: grown tool by tool, a chat's start threw away
	// a few copies of the list.
	n := 4 + len(externalTools())
	if tb.Traveller != nil {
		n += travellerTools
	}
	tools := make([]agent.Tool, 0, n)
	if tb.Search != nil {
		tools = append(tools, agent.Tool{
			Tool: llm.Tool{Name: DocumentSearch, Description: "Search the game's documents (rulebooks, setting books, scenarios) for passages about something. Results cite document title, page and document_id.",
				Parameters: searchSchema()},
			Status: "Searching the rulebooks…",
			Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
				return tb.search(ctx, callerOf(ctx, c).For(ctx), args)
			},
		})
	}
	if tb.Documents != nil {
		tools = append(tools, agent.Tool{
			Tool: llm.Tool{Name: DocumentGet, Description: "Read a whole page of a document (the document_id and page a search result cited), or the document's record when no page is given.",
				Parameters: getSchema()},
			Status: "Reading the page…",
			Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
				return tb.get(ctx, callerOf(ctx, c).For(ctx), args)
			},
		})
	}
	if tb.Images != nil {
		tools = append(tools, agent.Tool{
			Tool: llm.Tool{Name: ImageSearch, Description: "Find images in the game's documents (maps, portraits, illustrations) by caption or nearby text, or list a document's or page's images. Results give each image's id for fvtt_write's \"hearth-image:<id>\".",
				Parameters: imageSchema()},
			Status: "Looking for images…",
			Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
				return tb.images(ctx, callerOf(ctx, c).For(ctx), args)
			},
		})
	}
	tools = append(tools, agent.Tool{
		Tool: llm.Tool{Name: SystemSchema, Description: "Describe the Foundry VTT game system in use: its actor and item types and their data fields. Use before reading or writing Foundry documents.",
			Parameters: systemSchemaDef()},
		Status: "Reading the game system…",
		Run: func(ctx context.Context, args json.RawMessage) (agent.Result, error) {
			return systemSchema(callerOf(ctx, c), args)
		},
	})
	if tb.Traveller != nil {
		tools = append(tools, tb.Traveller.tools(tb, c)...)
	}
	return append(tools, externalTools()...)
}

// ExternalTools are the tools the client runs with the user's own Foundry
// permissions (seed 000 §2.4.1).
func ExternalTools() []agent.Tool { return slices.Clone(externalTools()) }

// Select keeps the tools named in names, in the tool set's order; an empty
// list keeps all. Unknown names are an error naming them, so a client's
// typo does not silently leave a tool out.
func Select(tools []agent.Tool, names []string) ([]agent.Tool, error) {
	if len(names) == 0 {
		return tools, nil
	}
	var unknown []string
	for _, n := range names {
		if !slices.ContainsFunc(tools, func(t agent.Tool) bool { return t.Name == n }) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown tools %s; the tools are %s", strings.Join(unknown, ", "), strings.Join(Names(tools), ", "))
	}
	return slices.DeleteFunc(slices.Clone(tools), func(t agent.Tool) bool { return !slices.Contains(names, t.Name) }), nil
}

// Names lists the tools' names.
func Names(tools []agent.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

func decodeArgs(args json.RawMessage, v any) error {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return hearth.Errorf(hearth.Invalid, "the arguments do not match the tool's schema: %v", err)
	}
	return nil
}

func (tb *Toolbox) search(ctx context.Context, c Caller, raw json.RawMessage) (agent.Result, error) {
	var a searchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return agent.Result{}, err
	}
	if strings.TrimSpace(a.Query) == "" {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "query is empty: say what to look for")
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 5
	}
	q := retrieve.Query{Text: a.Query, Role: c.Role, Limit: min(limit, maxSearchLimit), Budget: searchBudget,
		Filter: c.Library.filter(retrieve.Filter{Tags: a.Tags, Corpora: []chunk.Corpus{chunk.Lore}}, tb.Bundled)}
	switch a.TagsMatch {
	case "", "any":
	case "all":
		q.Filter.TagMatch = retrieve.All
	default:
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "tags_match %q: use any or all", a.TagsMatch)
	}
	res, err := tb.Search.Search(ctx, q)
	if err != nil {
		return agent.Result{}, fmt.Errorf("search: %w", err)
	}
	if len(res.Passages) == 0 {
		return agent.Result{Content: fmt.Sprintf("No passages found for %q. Try other words or fewer tags.", a.Query),
			Summary: "nothing found"}, nil
	}
	return agent.Result{Content: FormatPassages(res.Passages), Summary: fmt.Sprintf("%d passages", len(res.Passages))}, nil
}

// Source says where a passage comes from: a library book's title, page and
// id, or a pack's file and section.
type Source struct {
	DocumentID string `json:"document_id,omitempty"`
	Title      string `json:"title"`
	Heading    string `json:"heading,omitempty"`
	Page       int    `json:"page,omitempty"`
}

// SourceOf describes a passage's source.
func SourceOf(c chunk.Chunk) Source {
	s := Source{Title: c.Pack + ": " + c.File, Heading: c.Heading(), Page: c.Page}
	if id, ok := strings.CutPrefix(c.Pack, "doc:"); ok {
		s.DocumentID, s.Title = id, c.File
	}
	return s
}

// FormatPassages renders passages for a model, numbered, each with its
// citation.
func FormatPassages(ps []retrieve.Passage) string {
	var b strings.Builder
	for i, p := range ps {
		s := SourceOf(p.Chunk)
		fmt.Fprintf(&b, "[%d] %s", i+1, s.Title)
		if s.Heading != "" {
			fmt.Fprintf(&b, " › %s", s.Heading)
		}
		if s.Page > 0 {
			fmt.Fprintf(&b, ", page %d", s.Page)
		}
		if s.DocumentID != "" {
			fmt.Fprintf(&b, " (document_id %s)", s.DocumentID)
		}
		b.WriteString("\n")
		b.WriteString(clip(p.Chunk.Text, maxPassageChars))
		b.WriteString("\n\n")
	}
	return strings.TrimSpace(b.String())
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndexAny(s[:n], " \n")
	if cut < n/2 {
		cut = n
	}
	return s[:cut] + " […]"
}

func (tb *Toolbox) get(ctx context.Context, c Caller, raw json.RawMessage) (agent.Result, error) {
	var a getArgs
	if err := decodeArgs(raw, &a); err != nil {
		return agent.Result{}, err
	}
	if a.DocumentID == "" {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "document_id is empty: use the document_id a search result cited")
	}
	doc, err := tb.Documents.Document(ctx, a.DocumentID, c.Role)
	if errors.Is(err, library.ErrNotFound) {
		// The same answer whether the document is missing or above the
		// role, so its existence does not leak.
		return agent.Result{}, hearth.Errorf(hearth.NotFound, "no document %q", a.DocumentID)
	}
	if err != nil {
		return agent.Result{}, err
	}
	if a.Page <= 0 {
		return agent.Result{Content: fmt.Sprintf("%s (document_id %s): %d pages, format %s, tags %s. Ask for a page to read it.",
			doc.Title, doc.ID, doc.Pages, doc.Format, strings.Join(doc.Tags, ", ")), Summary: doc.Title}, nil
	}
	p, err := tb.Documents.Get(ctx, a.DocumentID, a.Page, c.Role)
	if errors.Is(err, library.ErrNotFound) {
		return agent.Result{}, hearth.Errorf(hearth.NotFound, "%s has no page %d; it has %d pages", doc.Title, a.Page, doc.Pages)
	}
	if err != nil {
		return agent.Result{}, err
	}
	label := fmt.Sprintf("page %d", p.Number)
	if p.Label != "" && p.Label != fmt.Sprint(p.Number) {
		label += " (printed " + p.Label + ")"
	}
	return agent.Result{Content: fmt.Sprintf("%s, %s:\n%s", doc.Title, label, clip(p.Text, maxPageChars)),
		Summary: fmt.Sprintf("%s, %s", doc.Title, label)}, nil
}

// maxImageLimit keeps an image list short in the model's context.
const maxImageLimit = 20

func (tb *Toolbox) images(ctx context.Context, c Caller, raw json.RawMessage) (agent.Result, error) {
	var a imageArgs
	if err := decodeArgs(raw, &a); err != nil {
		return agent.Result{}, err
	}
	if strings.TrimSpace(a.Query) == "" && a.DocumentID == "" {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "give a query or a document_id")
	}
	if a.Page != 0 && (a.Page < 0 || a.DocumentID == "") {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "page needs a document_id and must be 1 or more")
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 10
	}
	// The role filters exactly as GET /api/images does: through the
	// image's document.
	ims, err := tb.Images.SearchImages(ctx, library.ImageQuery{Text: a.Query, Document: a.DocumentID, Page: a.Page, Role: c.Role, Limit: min(limit, maxImageLimit)})
	if err != nil {
		return agent.Result{}, fmt.Errorf("image search: %w", err)
	}
	if len(ims) == 0 {
		return agent.Result{Content: "No images found. Try other words, or another document or page.", Summary: "no images"}, nil
	}
	titles := map[string]string{}
	var b strings.Builder
	for _, im := range ims {
		title, ok := titles[im.Document]
		if !ok && tb.Documents != nil {
			if d, err := tb.Documents.Document(ctx, im.Document, c.Role); err == nil {
				title = d.Title
			}
		}
		titles[im.Document] = title
		fmt.Fprintf(&b, "hearth-image:%d — %s (document_id %s), page %d, %dx%d", im.ID, cmpOr(title, im.Document), im.Document, im.Page, im.Width, im.Height)
		if d := strings.TrimSpace(im.Description); d != "" {
			fmt.Fprintf(&b, ": %s", clip(d, 300))
		} else if t := strings.TrimSpace(im.Context); t != "" {
			fmt.Fprintf(&b, "; near: %s", clip(t, 200))
		}
		b.WriteString("\n")
	}
	return agent.Result{Content: strings.TrimSpace(b.String()), Summary: fmt.Sprintf("%d images", len(ims))}, nil
}

func systemSchema(c Caller, raw json.RawMessage) (agent.Result, error) {
	var a schemaArgs
	if err := decodeArgs(raw, &a); err != nil {
		return agent.Result{}, err
	}
	if len(c.Schema) == 0 || string(c.Schema) == "null" {
		return agent.Result{Content: "The client did not describe its game system, so its schema is unknown. Ask the user, or read a document with fvtt_read to see its fields.",
			Summary: "no schema sent"}, nil
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(c.Schema, &caps); err != nil {
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "the client's system schema is not a JSON object: %v", err)
	}
	out := caps
	switch a.DocumentType {
	case "":
	case "actor", "item":
		out = map[string]json.RawMessage{}
		for _, k := range []string{"system", "systemTitle", a.DocumentType + "Types", a.DocumentType + "Schemas"} {
			if v, ok := caps[k]; ok {
				out[k] = v
			}
		}
	default:
		return agent.Result{}, hearth.Errorf(hearth.Invalid, "document_type %q: use actor or item", a.DocumentType)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return agent.Result{}, err
	}
	var system string
	_ = json.Unmarshal(caps["system"], &system)
	return agent.Result{Content: string(b), Summary: cmpOr(system, "game system")}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
