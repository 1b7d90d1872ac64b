package world

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// decoders maps every effect's stable JSON name to its decoder. It is
// written once here and only read.
var decoders = map[string]func([]byte) (Effect, error){}

func register[T Effect]() {
	var zero T
	decoders[zero.Kind()] = func(b []byte) (Effect, error) {
		var v T
		err := json.Unmarshal(b, &v)
		return v, err
	}
}

func init() {
	register[TurnBegan]()
	register[HPChanged]()
	register[TempHPChanged]()
	register[ConditionApplied]()
	register[ConditionRemoved]()
	register[CharacterMoved]()
	register[ItemTransferred]()
	register[ItemEquipped]()
	register[ItemCreated]()
	register[GoldChanged]()
	register[XPGained]()
	register[StatChanged]()
	register[Rested]()
	register[SpellSlotSpent]()
	register[ConcentrationStarted]()
	register[ConcentrationEnded]()
	register[SpellTargetFreed]()
	register[CombatStarted]()
	register[CombatRound]()
	register[CombatantJoined]()
	register[CombatEnded]()
	register[NPCCreated]()
	register[NPCUpdated]()
	register[NPCRemoved]()
	register[LocationCreated]()
	register[LocationsConnected]()
	register[LocationUpdated]()
	register[ExitChanged]()
	register[DiscoveryMade]()
	register[FactRecorded]()
	register[EntitiesMentioned]()
	register[RelationshipSet]()
	register[DeathSavesChanged]()
	register[ConsequenceRegistered]()
	register[ConsequenceTriggered]()
	register[QuestCreated]()
	register[QuestStatusChanged]()
	register[ObjectiveAdded]()
	register[ObjectiveCompleted]()
	register[EventScheduled]()
	register[ScheduledEventFired]()
	register[EventRecorded]()
	register[StatePatched]()
	register[ReputationChanged]()
	register[PerceptionChanged]()
	register[ClockCreated]()
	register[ClockTicked]()
	register[ClockFired]()
	register[ThreadUpdated]()
	register[SceneChanged]()
	register[WhisperSent]()
	register[SecretRevealed]()
	register[TimeAdvanced]()
	register[PartyMemberAdded]()
	register[PartyMemberRemoved]()
	register[ControllerChanged]()
	register[ActorChanged]()
	register[NoteRecorded]()
	register[MemoryRecorded]()
	register[MemoryCompressed]()
	register[ElementExtracted]()
	register[ElementReferenced]()
	register[ElementResolved]()
	register[ModuleSelected]()
}

// EffectKinds lists the stable names of all effects, sorted.
func EffectKinds() []string {
	return SortedKeys(decoders)
}

// MarshalEffect encodes an effect as a JSON object whose "type" member is
// its Kind, followed by its fields.
func MarshalEffect(e Effect) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", e.Kind(), err)
	}
	var buf bytes.Buffer
	buf.Grow(len(body) + len(e.Kind()) + 12)
	buf.WriteString(`{"type":`)
	kind, _ := json.Marshal(e.Kind())
	buf.Write(kind)
	if len(body) > 2 { // not "{}"
		buf.WriteByte(',')
		buf.Write(body[1:])
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}

// UnmarshalEffect decodes what MarshalEffect encodes.
func UnmarshalEffect(b []byte) (Effect, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("decode effect: %w", err)
	}
	dec, ok := decoders[head.Type]
	if !ok {
		return nil, fmt.Errorf("decode effect: unknown type %q", head.Type)
	}
	e, err := dec(b)
	if err != nil {
		return nil, fmt.Errorf("decode effect %s: %w", head.Type, err)
	}
	return e, nil
}

// Effects is a list of effects that encodes as a JSON array of tagged
// objects.
type Effects []Effect

// MarshalJSON implements json.Marshaler.
func (es Effects) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := MarshalEffect(e)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (es *Effects) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("decode effects: %w", err)
	}
	out := make(Effects, 0, len(raw))
	for i, r := range raw {
		e, err := UnmarshalEffect(r)
		if err != nil {
			return fmt.Errorf("effect %d: %w", i, err)
		}
		out = append(out, e)
	}
	*es = out
	return nil
}

// Of returns the effects of type T, in order.
func Of[T Effect](es []Effect) []T {
	var out []T
	for _, e := range es {
		if t, ok := e.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// Has reports whether es holds an effect of type T.
func Has[T Effect](es []Effect) bool {
	return slices.ContainsFunc(es, func(e Effect) bool { _, ok := e.(T); return ok })
}
