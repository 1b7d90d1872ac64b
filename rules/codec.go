package rules

//go:generate go run ./internal/describe/gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// IntentSpec describes one intent type: its stable name and a zero value,
// from which tool schemas are generated.
type IntentSpec struct {
	Name string
	// Description is the type's doc comment (see descriptions.go), the
	// tool description a model reads.
	Description string
	Zero        Intent // a zero value, for reflection (tool schemas)
	dec         func([]byte) (Intent, error)
}

func spec[T Intent]() IntentSpec {
	var zero T
	return IntentSpec{
		Name:        zero.Type(),
		Description: descriptions[zero.Type()],
		Zero:        zero,
		dec: func(b []byte) (Intent, error) {
			var v T
			d := json.NewDecoder(bytes.NewReader(b))
			d.DisallowUnknownFields()
			err := d.Decode(&v)
			return v, err
		},
	}
}

// Specs lists every intent type, in a stable order.
func Specs() []IntentSpec {
	return []IntentSpec{
		spec[Check](), spec[SavingThrow](), spec[Attack](), spec[Grapple](), spec[Damage](), spec[Heal](), spec[CastSpell](),
		spec[ApplyCondition](), spec[RemoveCondition](), spec[Move](), spec[Rest](),
		spec[UseItem](), spec[TakeItem](), spec[GiveItem](), spec[DropItem](), spec[EquipItem](),
		spec[ChangeGold](), spec[Look](), spec[Search](), spec[Talk](), spec[RollDice](),
		spec[StartCombat](), spec[EndCombat](), spec[Flee](), spec[DeathSave](),
		spec[CreateNPC](), spec[UpdateNPC](), spec[MoveNPC](), spec[RemoveNPC](),
		spec[CreateLocation](), spec[ConnectLocations](), spec[UpdateLocation](),
		spec[RememberFact](), spec[RegisterConsequence](),
		spec[CreateQuest](), spec[StartQuest](), spec[AddObjective](), spec[CompleteObjective](),
		spec[CompleteQuest](), spec[FailQuest](), spec[ScheduleEvent](), spec[AssertState](),
		spec[ChangeReputation](), spec[ChangePerception](), spec[ChangeStat](),
		spec[CreateClock](), spec[AdvanceClock](), spec[UpdateThread](), spec[ChangeScene](),
		spec[Whisper](), spec[RevealSecret](), spec[AdvanceTime](),
	}
}

// specsByName indexes Specs by name, built on first use by DecodeIntent:
// decoding an intent is on every turn's path, and Specs allocates every
// spec anew. The specs are values with no state, so sharing them is safe.
var specsByName = sync.OnceValue(func() map[string]IntentSpec {
	m := map[string]IntentSpec{}
	for _, s := range Specs() {
		m[s.Name] = s
	}
	return m
})

func findSpec(name string) (IntentSpec, bool) {
	s, ok := specsByName()[name]
	return s, ok
}

// Names returns the names of all intents.
func Names() []string {
	var out []string
	for _, s := range Specs() {
		out = append(out, s.Name)
	}
	return out
}

// MarshalIntent encodes an intent as a JSON object with its name in "type".
func MarshalIntent(in Intent) ([]byte, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", in.Type(), err)
	}
	name, _ := json.Marshal(in.Type())
	var buf bytes.Buffer
	buf.WriteString(`{"type":`)
	buf.Write(name)
	if len(body) > 2 {
		buf.WriteByte(',')
		buf.Write(body[1:])
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}

// DecodeIntent decodes a tagged intent object ({"type": "attack", …}).
func DecodeIntent(b []byte) (Intent, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("decode intent: %w", err)
	}
	if head.Type == "" {
		return nil, fmt.Errorf(`decode intent: missing "type"; one of: %v`, Names())
	}
	body, err := withoutType(b)
	if err != nil {
		return nil, fmt.Errorf("decode intent: %w", err)
	}
	return DecodeArgs(head.Type, body)
}

// DecodeArgs decodes the arguments of the named intent, as a model's tool
// call carries them. Unknown fields are an error, so a model's typo is
// reported instead of silently ignored.
func DecodeArgs(name string, args []byte) (Intent, error) {
	s, ok := findSpec(name)
	if !ok {
		return nil, fmt.Errorf("unknown intent %q; valid intents: %v", name, Names())
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	in, err := s.dec(args)
	if err != nil {
		return nil, fmt.Errorf("%s: bad arguments: %w", name, err)
	}
	return in, nil
}

func withoutType(b []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "type")
	return json.Marshal(m)
}

// Intents is a list of intents that encodes as a JSON array of tagged
// objects.
type Intents []Intent

// MarshalJSON implements json.Marshaler.
func (is Intents) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, in := range is {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := MarshalIntent(in)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (is *Intents) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Intents, 0, len(raw))
	for i, r := range raw {
		in, err := DecodeIntent(r)
		if err != nil {
			return fmt.Errorf("intent %d: %w", i, err)
		}
		out = append(out, in)
	}
	*is = out
	return nil
}
