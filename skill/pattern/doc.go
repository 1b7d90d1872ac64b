// Package pattern is the offline plan generator of seed 001 §5.4: fixed
// regular expressions map player input to plans over the skills that are
// installed, without a model. It is deterministic, respects the disabled
// skills and the replan metadata, and answers input it does not recognise
// with a narration-only plan. Hearth uses it when no model is configured
// and in tests.
//
// It must stay a pure function of its request: no I/O, no state.
package pattern
