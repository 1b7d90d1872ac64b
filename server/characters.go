package server

import (
	"errors"
	"net/http"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/chargen"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/internal/api"
	"github.com/hearth-rpg/hearth/world"
)

// createCharacter is the body of POST /api/characters: the choices, and
// the seed of the template backstory (0 when absent).
type createCharacter struct {
	chargen.Choices
	StorySeed uint64 `json:"story_seed,omitempty"`
}

// characterView is a saved character with its game sheet.
type characterView struct {
	chargen.Saved
	Sheet *world.Character `json:"sheet"`
}

// viewer is who asks the library: the GM sees every user's characters.
func viewer(r *http.Request) chargen.Viewer {
	u := user(r)
	return chargen.Viewer{UserID: u.ID, All: u.Role >= access.GM}
}

func (s *Server) characters(w http.ResponseWriter, r *http.Request) (chargen.Store, bool) {
	if s.o.Characters == nil {
		s.fail(w, r, hearth.Errorf(hearth.Unavailable, "this server keeps no character library"))
		return nil, false
	}
	return s.o.Characters, true
}

func (s *Server) view(w http.ResponseWriter, r *http.Request, status int, c chargen.Saved) {
	sheet, err := c.Character.Sheet(c.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	api.JSON(w, status, characterView{Saved: c, Sheet: sheet})
}

// buildRefused answers a refused build: code and message as every error,
// and the Choices field the rule names, so that a form can show the
// refusal beside it.
func (s *Server) buildRefused(w http.ResponseWriter, r *http.Request, err error) {
	field := chargen.Field(err)
	if field == "" || hearth.ErrorCode(err) != hearth.Invalid {
		s.fail(w, r, err)
		return
	}
	var b struct {
		Error struct {
			Code    hearth.Code `json:"code"`
			Message string      `json:"message"`
			Field   string      `json:"field"`
		} `json:"error"`
	}
	b.Error.Code, b.Error.Message, b.Error.Field = hearth.Invalid, refusalText(r, err), field
	api.JSON(w, http.StatusBadRequest, b)
}

// refusalText is a refused build's message in the request's language:
// chargen's own for English (so clients see the words they always did),
// its catalog message for any other.
func refusalText(r *http.Request, err error) string {
	var rf *chargen.Refusal
	loc := i18n.From(r.Context())
	if !errors.As(err, &rf) || loc.Language() == "" || loc.Language() == "en" {
		return hearth.ErrorMessage(err)
	}
	return loc.T(rf.ID, rf.Data)
}

// previewCharacter is POST /api/characters/preview: the build the choices
// make, with everything the rules derive (the rolls of a rolled method's
// seed among it), or the rule it breaks; nothing is saved and no
// backstory written, so a creation wizard may ask at every step. It takes
// the body POST /api/characters takes.
func (s *Server) previewCharacter(w http.ResponseWriter, r *http.Request) {
	var in createCharacter
	if !api.DecodeOrError(w, r, &in, s.o.MaxBodyBytes) {
		return
	}
	ch, err := chargen.Build(in.Choices)
	if err != nil {
		s.buildRefused(w, r, err)
		return
	}
	api.JSON(w, http.StatusOK, ch)
}

func (s *Server) characterOptions(w http.ResponseWriter, r *http.Request) {
	api.JSON(w, http.StatusOK, chargen.Options())
}

func (s *Server) createCharacter(w http.ResponseWriter, r *http.Request) {
	st, ok := s.characters(w, r)
	if !ok {
		return
	}
	var in createCharacter
	if !api.DecodeOrError(w, r, &in, s.o.MaxBodyBytes) {
		return
	}
	ch, err := chargen.Build(in.Choices)
	if err != nil {
		s.buildRefused(w, r, err)
		return
	}
	teller := s.o.Storyteller
	if teller == nil {
		teller = chargen.Templates{}
	}
	story, err := teller.Story(r.Context(), ch, in.StorySeed)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ch.Story = &story
	saved, err := st.Create(r.Context(), user(r).ID, ch)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.view(w, r, http.StatusCreated, saved)
}

func (s *Server) listCharacters(w http.ResponseWriter, r *http.Request) {
	st, ok := s.characters(w, r)
	if !ok {
		return
	}
	list, err := st.List(r.Context(), viewer(r))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if list == nil {
		list = []chargen.Saved{}
	}
	api.JSON(w, http.StatusOK, list)
}

func (s *Server) getCharacter(w http.ResponseWriter, r *http.Request) {
	st, ok := s.characters(w, r)
	if !ok {
		return
	}
	c, err := st.Get(r.Context(), viewer(r), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.view(w, r, http.StatusOK, c)
}

func (s *Server) deleteCharacter(w http.ResponseWriter, r *http.Request) {
	st, ok := s.characters(w, r)
	if !ok {
		return
	}
	if err := st.Delete(r.Context(), viewer(r), r.PathValue("id")); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
