package plan

// DeepMerge returns target with patch merged into it as seed 001 §2.4
// defines: a null value removes the key, an object merges into an object
// recursively, anything else (arrays included) replaces. Neither argument
// is modified and the result shares nothing with them. Nulls inside an
// object that replaces a non-object are dropped too, so the state never
// holds nulls.
func DeepMerge(target, patch map[string]any) map[string]any {
	out := copyMap(target)
	if out == nil {
		out = map[string]any{}
	}
	mergeInto(out, patch)
	return out
}

func mergeInto(dst, patch map[string]any) {
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(dst, k)
		case map[string]any:
			sub, ok := dst[k].(map[string]any)
			if !ok {
				sub = map[string]any{}
				dst[k] = sub
			}
			mergeInto(sub, pv)
		default:
			dst[k] = copyValue(v)
		}
	}
}

// ComposePatch returns the patch that has the effect of applying a and
// then b: nulls are kept as deletions, objects compose recursively, other
// values replace. One case cannot be expressed in a patch: b writing an
// object where a wrote a non-object or null. Applied, the composition
// merges that object into the state's value where a then b would have
// replaced it.
func ComposePatch(a, b map[string]any) map[string]any {
	out := copyMap(a)
	if out == nil {
		out = map[string]any{}
	}
	composeInto(out, b)
	return out
}

func composeInto(dst, patch map[string]any) {
	for k, v := range patch {
		if pv, ok := v.(map[string]any); ok {
			if sub, ok := dst[k].(map[string]any); ok {
				composeInto(sub, pv)
				continue
			}
		}
		dst[k] = copyValue(v)
	}
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return copyMap(x)
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = copyValue(e)
		}
		return a
	}
	return v
}
